package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HcnErrorRecord;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/** One test per HNS rule the emulator enforces, each showing the HRESULT HNS returns. */
class HnsEmulatorRulesTest {
    private final EmulatorFixture f = EmulatorFixture.create();

    @Test
    void createdObjectsGetUniqueBareLowerCaseGuids() {
        Set<String> ids = new HashSet<>();
        for (int port = 1; port <= 50; port++) {
            ids.add(f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", port, 0, f.pod1.id())).id());
        }
        ids.add(f.pod1.id());
        ids.add(f.network.id());

        assertThat(ids).hasSize(52)
                .allMatch(id -> id.matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"));
    }

    @Test
    void loadBalancerWithoutEndpointReferenceFailsWithInvalidJsonReference() {
        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0)),
                HResults.HCN_E_INVALID_JSON_REFERENCE);
    }

    @Test
    void loadBalancerWithUnknownEndpointFailsWithInvalidJsonReference() {
        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id(), "00000000-0000-0000-0000-00000000dead")), HResults.HCN_E_INVALID_JSON_REFERENCE);
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
    }

    @Test
    void secondLoadBalancerOnTheSameVipProtocolAndPortFailsWithPortAlreadyExists() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()));

        HnsException e = assertHresult(() -> f.hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod2.id())), HResults.HCN_E_PORT_ALREADY_EXISTS);
        assertThat(e.isAlreadyExists()).isTrue();
        // Another port, protocol or VIP is fine.
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 81, 0, f.pod1.id()));
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0, f.pod1.id()));
        f.hns.createLoadBalancer(HostComputeLoadBalancer.of(List.of(f.pod1.id()), "", "10.96.0.1",
                new LoadBalancerPortMapping(17, 8080, 80, 0, 0), 0));
        assertThat(f.hns.listLoadBalancerIds()).hasSize(4);
    }

    @Test
    void secondVipLessNodePortLoadBalancerOnTheSamePortAndProtocolFailsWithPortAlreadyExists() {
        f.hns.createLoadBalancer(EmulatorFixture.nodePort(30080, f.pod1.id()));

        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.nodePort(30080, f.pod2.id())),
                HResults.HCN_E_PORT_ALREADY_EXISTS);
    }

    @Test
    void internalPortZeroFailsWithInvalidInternalPort() {
        HostComputeLoadBalancer lb = HostComputeLoadBalancer.of(List.of(f.pod1.id()), "", "10.96.0.1",
                new LoadBalancerPortMapping(6, 0, 80, 0, 0), 0);

        assertHresult(() -> f.hns.createLoadBalancer(lb), HResults.HCN_E_INVALID_INTERNAL_PORT);
    }

    @Test
    void dsrFlagFailsWithRequestUnsupportedWhereTheVersionLacksDsr() {
        f.hns.setVersion(new HnsVersion(10, 1));

        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80,
                HostComputeLoadBalancer.FLAG_DSR, f.pod1.id())), HResults.HCN_E_REQUEST_UNSUPPORTED);
        f.hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);
        assertThat(f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80,
                HostComputeLoadBalancer.FLAG_DSR, f.pod1.id())).isDsr()).isTrue();
    }

    @Test
    void ipv6FlagFailsWithRequestUnsupportedWithoutIpv6DualStack() {
        f.hns.setVersion(HnsVersion.WINDOWS_SERVER_2019);

        assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("fd00::10", 80,
                HostComputeLoadBalancer.FLAG_IPV6, f.pod1.id())), HResults.HCN_E_REQUEST_UNSUPPORTED);
    }

    @Test
    void modifyBeforeHns154FailsWithNotImplemented() {
        f.hns.setVersion(HnsVersion.WINDOWS_SERVER_2022);
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        HnsException e = assertHresult(() -> f.hns.modifyLoadBalancer(lb.id(),
                EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod2.id())), HResults.E_NOTIMPL);
        assertThat(e.isNotImplemented()).isTrue();
        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().hostComputeEndpoints()).containsExactly(f.pod1.id());
    }

    @Test
    void modifyOnHns154TakesEveryFieldButKeepsTheOldEndpointsAndSaysSo() {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        HostComputeLoadBalancer changed = f.hns.modifyLoadBalancer(lb.id(),
                EmulatorFixture.clusterIp("10.96.0.1", 81, 0, f.pod1.id(), f.pod2.id()));

        // kubernetes/kubernetes#131466: Windows Server 2025 (HNS 15.4) silently keeps the backends.
        assertThat(changed.id()).isEqualTo(lb.id());
        assertThat(changed.hostComputeEndpoints()).containsExactly(f.pod1.id());
        assertThat(changed.portMapping().orElseThrow().externalPort()).isEqualTo(81);
        HostComputeLoadBalancer stored = f.hns.getLoadBalancer(lb.id()).orElseThrow();
        assertThat(stored.hostComputeEndpoints()).containsExactly(f.pod1.id());
        assertThat(stored.portMapping().orElseThrow().externalPort()).isEqualTo(81);
    }

    @Test
    void modifyFromHns155ReplacesTheSettingsInPlace() {
        f.hns.setVersion(new HnsVersion(15, 5));
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        HostComputeLoadBalancer changed = f.hns.modifyLoadBalancer(lb.id(),
                EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id(), f.pod2.id()));

        assertThat(changed.id()).isEqualTo(lb.id());
        assertThat(changed.hostComputeEndpoints()).containsExactly(f.pod1.id(), f.pod2.id());
        assertThat(f.hns.getLoadBalancer(lb.id()).orElseThrow().hostComputeEndpoints())
                .containsExactly(f.pod1.id(), f.pod2.id());
    }

    @Test
    void openDeleteAndGetOfAnUnknownIdFailWithElementNotFound() {
        String unknown = "6e1c9a8b-0000-4000-8000-000000000001";

        assertHresult(() -> f.hns.deleteLoadBalancer(unknown), HResults.ERROR_NOT_FOUND);
        assertHresult(() -> f.hns.deleteEndpoint(unknown), HResults.ERROR_NOT_FOUND);
        assertHresult(() -> f.hns.modifyLoadBalancer(unknown, EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id())), HResults.ERROR_NOT_FOUND);
        assertHresult(() -> f.hns.createEndpoint(unknown, f.remote), HResults.ERROR_NOT_FOUND);
        assertThat(f.hns.getLoadBalancer(unknown)).isEmpty();
        assertThat(f.hns.getEndpoint(unknown)).isEmpty();
        assertThat(f.hns.getNetworkById(unknown)).isEmpty();
    }

    @Test
    void deletingAnEndpointStillReferencedByALoadBalancerFailsWithEntityHasReferences() {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.remote.id()));

        assertHresult(() -> f.hns.deleteEndpoint(f.remote.id()), HResults.HCN_E_ENTITY_HAS_REFERENCES);
        f.hns.deleteLoadBalancer(lb.id());
        f.hns.deleteEndpoint(f.remote.id());
        assertThat(f.hns.getEndpoint(f.remote.id())).isEmpty();
    }

    @Test
    void failuresCarryAnHcnErrorRecordWithTheSameCode() throws Exception {
        HnsException e = assertHresult(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80,
                0)), HResults.HCN_E_INVALID_JSON_REFERENCE);

        HcnErrorRecord rec = HcnJson.newMapper().readValue(e.errorRecord(), HcnErrorRecord.class);
        assertThat(rec.success()).isFalse();
        assertThat(rec.hresult()).isEqualTo(HResults.HCN_E_INVALID_JSON_REFERENCE);
        assertThat(e.operation()).isEqualTo("HcnCreateLoadBalancer");
        assertThat(e.getMessage()).contains("0x803B001C HCN_E_INVALID_JSON_REFERENCE");
    }

    @Test
    void idsAreMatchedWithoutRegardToCaseOrBraces() {
        HostComputeLoadBalancer lb = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()));

        assertThat(f.hns.getLoadBalancer("{" + lb.id().toUpperCase() + "}")).isPresent();
    }

    @Test
    void idsThatAreNotGuidsAreRefusedBeforeAnyNativeCall() {
        assertThatThrownBy(() -> f.hns.deleteLoadBalancer("lb-1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid load balancer ID \"lb-1\"");
        assertThatThrownBy(() -> f.hns.getEndpoint("10.244.1.5")).hasMessage("invalid endpoint ID \"10.244.1.5\"");
        assertThatThrownBy(() -> f.hns.createEndpoint("winproxy-overlay", f.remote))
                .hasMessage("invalid network ID \"winproxy-overlay\"");
        assertThat(f.hns.journal().total()).isZero();
    }

    @Test
    void loadBalancerWithoutPortMappingFailsWithInvalidPolicy() {
        HostComputeLoadBalancer lb = new HostComputeLoadBalancer(null, List.of(f.pod1.id()), "",
                List.of("10.96.0.9"), List.of(), null, 0);

        assertHresult(() -> f.hns.createLoadBalancer(lb), HResults.HCN_E_INVALID_POLICY);
    }

    @Test
    void endpointWhoseIpIsNotAnAddressFailsWithInvalidIp() {
        assertHresult(() -> f.hns.createEndpoint(f.network.id(), HostComputeEndpoint.remote(f.network.id(),
                "10.244.2.300", "02-11-0A-F4-02-08", "192.168.10.22")), HResults.HCN_E_INVALID_IP);
    }

    private static HnsException assertHresult(ThrowingCallable call, int hresult) {
        HnsException[] caught = new HnsException[1];
        assertThatThrownBy(call).isInstanceOfSatisfying(HnsException.class, e -> {
            assertThat(HResults.describe(e.hresult())).isEqualTo(HResults.describe(hresult));
            caught[0] = e;
        });
        return caught[0];
    }
}
