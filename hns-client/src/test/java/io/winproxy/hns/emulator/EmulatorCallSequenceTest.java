package io.winproxy.hns.emulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.entry;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The native call sequences of the newer {@code HnsClient} methods, journaled and reported exactly as the JNA binding
 * will make them: ID enumeration, direct open by GUID, caller-chosen IDs, network sessions, the call listener.
 */
class EmulatorCallSequenceTest {
    private static final String LB_ID = "2f0c9f0e-5b7a-4c1e-9d1a-0a0b0c0d0e01";
    private static final String EP_ID = "2f0c9f0e-5b7a-4c1e-9d1a-0a0b0c0d0e02";

    private final EmulatorFixture f = EmulatorFixture.create();
    private final CallJournal journal = f.hns.journal();
    private final List<String> heard = Collections.synchronizedList(new ArrayList<>());

    @Test
    void listingEndpointIdsIsOneEnumerateAndReturnsOnlyThatNetworksEndpoints() {
        HostComputeNetwork other = new EmulatedHost(f.hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr1", "node-a")
                .syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.250.0.0/24", "192.168.10.21")));
        HostComputeEndpoint elsewhere = f.hns.createEndpoint(other.id(),
                HostComputeEndpoint.remote(other.id(), "10.250.0.9", null, null));
        journal.reset();

        List<String> ids = f.hns.listEndpointIds(f.network.id());

        assertThat(ids).containsExactly(f.pod1.id(), f.pod2.id(), f.remote.id()).doesNotContain(elsewhere.id());
        assertThat(journal.snapshot()).containsExactly(entry("HcnEnumerateEndpoints", 1));
        assertThat(f.hns.listEndpointIds("0a0b0c0d-1111-2222-3333-444455556666")).isEmpty();
    }

    @Test
    void aLoadBalancerCreatedWithAChosenIdGetsExactlyThatIdWithCreateAndCloseOnly() {
        HostComputeLoadBalancer created = f.hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()).withId(LB_ID));

        assertThat(created.id()).isEqualTo(LB_ID);
        assertThat(created.frontendVips()).containsExactly("10.96.0.1");
        assertThat(journal.snapshot()).containsExactly(entry("HcnCloseLoadBalancer", 1),
                entry("HcnCreateLoadBalancer", 1));
        assertThat(f.hns.getLoadBalancer(LB_ID)).contains(created);
    }

    @Test
    void anEndpointCreatedWithAChosenIdIsCompletedByHnsAndCostsNoQuery() {
        HostComputeEndpoint created = f.hns.createEndpoint(f.network.id(),
                HostComputeEndpoint.remote(f.network.id(), "10.244.3.9", null, "192.168.10.23").withId(EP_ID));

        assertThat(created.id()).isEqualTo(EP_ID);
        assertThat(created.hostComputeNetwork()).isEqualTo(f.network.id());
        assertThat(created.macAddress()).startsWith("00-15-5D-");
        assertThat(journal.snapshot()).containsExactly(entry("HcnOpenNetwork", 1), entry("HcnCloseNetwork", 1),
                entry("HcnCloseEndpoint", 1), entry("HcnCreateEndpoint", 1));
        assertThat(f.hns.getEndpoint(EP_ID)).contains(created);
    }

    @Test
    void aChosenIdThatAnyObjectAlreadyHasFailsTheCreateWithAlreadyExists() {
        String taken = f.pod1.id().toUpperCase(Locale.ROOT);

        assertThatThrownBy(() -> f.hns.createLoadBalancer(
                EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id()).withId(taken)))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS);
                    assertThat(e.isAlreadyExists()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnCreateLoadBalancer");
                });
        assertThatThrownBy(() -> f.hns.createEndpoint(f.network.id(),
                HostComputeEndpoint.remote(f.network.id(), "10.244.3.9", null, null).withId("{" + f.network.id()
                        + "}"))).isInstanceOfSatisfying(HnsException.class,
                                e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS));
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
        assertThat(f.hns.listEndpointIds(f.network.id())).hasSize(3);
        assertThat(journal.failuresByHresult()).containsExactly(entry(HResults.ERROR_ALREADY_EXISTS, 2));
        assertThat(journal.count(HnsCall.CREATE)).isEqualTo(2);
    }

    @Test
    void aChosenIdIsMatchedWithoutRegardToCaseOrBracesAfterwards() {
        f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0, f.pod1.id())
                .withId(LB_ID.toUpperCase(Locale.ROOT)));

        assertThat(f.hns.getLoadBalancer("{" + LB_ID + "}")).isPresent();
        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.2", 80, 0,
                f.pod1.id()).withId(LB_ID))).isInstanceOfSatisfying(HnsException.class,
                        e -> assertThat(e.isAlreadyExists()).isTrue());
        f.hns.deleteLoadBalancer(LB_ID);
        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
    }

    @Test
    void aChosenIdThatIsNotAGuidIsRefusedBeforeAnyNativeCall() {
        assertThatThrownBy(() -> f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()).withId("lb-1"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("invalid load balancer ID \"lb-1\"");
        assertThatThrownBy(() -> f.hns.createEndpoint(f.network.id(), f.remote.withId("ep-1")))
                .hasMessage("invalid endpoint ID \"ep-1\"");

        assertThat(journal.total()).isZero();
    }

    @Test
    void theZeroGuidLetsHnsAssignTheIdAsHcnDoes() {
        HostComputeLoadBalancer created = f.hns.createLoadBalancer(EmulatorFixture.clusterIp("10.96.0.1", 80, 0,
                f.pod1.id()).withId("00000000-0000-0000-0000-000000000000"));

        assertThat(created.id()).isNotEqualTo("00000000-0000-0000-0000-000000000000");
        assertThat(journal.count(HnsCall.QUERY, HnsObjectKind.LOAD_BALANCER)).isEqualTo(1);
    }

    @Test
    void aNetworkSessionOpensAndClosesTheNetworkOnceForManyEndpointCreates() {
        try (NetworkSession session = f.hns.openNetwork(f.network.id())) {
            assertThat(session.networkId()).isEqualTo(f.network.id());
            for (int i = 10; i < 13; i++) {
                session.createEndpoint(HostComputeEndpoint.remote(f.network.id(), "10.244.3." + i, null,
                        "192.168.10.23"));
            }
            session.createEndpoint(HostComputeEndpoint.remote(f.network.id(), "10.244.3.20", null,
                    "192.168.10.23").withId(EP_ID));
        }

        assertThat(journal.snapshot()).containsExactly(entry("HcnOpenNetwork", 1), entry("HcnCloseNetwork", 1),
                entry("HcnQueryEndpointProperties", 3), entry("HcnCloseEndpoint", 4), entry("HcnCreateEndpoint", 4));
        assertThat(f.hns.listEndpointIds(f.network.id())).hasSize(7).contains(EP_ID);
    }

    @Test
    void closingASessionTwiceClosesTheNetworkOnceAndACreateAfterCloseIsRefused() {
        NetworkSession session = f.hns.openNetwork(f.network.id());
        session.close();
        session.close();

        assertThat(journal.count(HnsCall.CLOSE, HnsObjectKind.NETWORK)).isEqualTo(1);
        assertThatThrownBy(() -> session.createEndpoint(HostComputeEndpoint.remote(f.network.id(), "10.244.3.9",
                null, null))).isInstanceOf(IllegalStateException.class);
        assertThat(journal.count(HnsCall.CREATE)).isZero();
    }

    @Test
    void openingASessionOnAnUnknownNetworkFailsWithNotFoundAfterOneOpen() {
        assertThatThrownBy(() -> f.hns.openNetwork("0a0b0c0d-1111-2222-3333-444455556666"))
                .isInstanceOfSatisfying(HnsException.class, e -> {
                    assertThat(e.isNotFound()).isTrue();
                    assertThat(e.operation()).isEqualTo("HcnOpenNetwork");
                });
        assertThat(journal.snapshot()).containsExactly(entry("HcnOpenNetwork", 1));
        assertThat(journal.failures()).isEqualTo(1);
    }

    @Test
    void aSessionCreateFollowsTheSameRulesAsAPlainCreate() {
        try (NetworkSession session = f.hns.openNetwork(f.network.id())) {
            session.createEndpoint(f.remote.withId(EP_ID).withNetwork(null));
            assertThatThrownBy(() -> session.createEndpoint(f.remote.withId(EP_ID)))
                    .isInstanceOfSatisfying(HnsException.class,
                            e -> assertThat(e.hresult()).isEqualTo(HResults.ERROR_ALREADY_EXISTS));
            assertThatThrownBy(() -> session.createEndpoint(HostComputeEndpoint.remote(null, "10.244.2.300", null,
                    null))).isInstanceOfSatisfying(HnsException.class,
                            e -> assertThat(e.hresult()).isEqualTo(HResults.HCN_E_INVALID_IP));
        }
        assertThat(journal.count(HnsCall.OPEN, HnsObjectKind.NETWORK)).isEqualTo(1);
        assertThat(journal.count(HnsCall.CLOSE, HnsObjectKind.NETWORK)).isEqualTo(1);
    }

    @Test
    void theListenerHearsEveryNativeCallByExportNameInOrderFailuresIncluded() {
        f.hns.setNativeCallListener(heard::add);

        f.hns.createEndpoint(f.network.id(), HostComputeEndpoint.remote(f.network.id(), "10.244.3.9", null, null));
        f.hns.getLoadBalancer(LB_ID);
        f.hns.listLoadBalancerIds();
        f.hns.listEndpointIds(f.network.id());
        try (NetworkSession session = f.hns.openNetwork(f.network.id())) {
            session.createEndpoint(HostComputeEndpoint.remote(f.network.id(), "10.244.3.10", null, null)
                    .withId(EP_ID));
        }

        assertThat(heard).containsExactly(
                "HcnOpenNetwork", "HcnCreateEndpoint", "HcnQueryEndpointProperties", "HcnCloseEndpoint",
                "HcnCloseNetwork",
                "HcnOpenLoadBalancer",
                "HcnEnumerateLoadBalancers",
                "HcnEnumerateEndpoints",
                "HcnOpenNetwork", "HcnCreateEndpoint", "HcnCloseEndpoint", "HcnCloseNetwork");
        assertThat(heard).hasSize(journal.total());
    }

    @Test
    void theListenerHearsRuleViolationsAndInjectedFaultsAndCanBeRemoved() {
        f.hns.setNativeCallListener(heard::add);
        f.hns.faults().failNext(HnsCall.ENUMERATE, HnsObjectKind.LOAD_BALANCER, 1, HResults.HCN_E_MANAGER_STOPPED);

        assertThatThrownBy(f.hns::listLoadBalancerIds).isInstanceOf(HnsException.class);
        assertThatThrownBy(() -> f.hns.deleteLoadBalancer(LB_ID)).isInstanceOf(HnsException.class);
        f.hns.setNativeCallListener(NativeCallListener.NONE);
        f.hns.listLoadBalancerIds();

        assertThat(heard).containsExactly("HcnEnumerateLoadBalancers", "HcnDeleteLoadBalancer");
        assertThat(journal.failures()).isEqualTo(2);
    }

    @Test
    void aListenerSetToNullIsTreatedAsNone() {
        f.hns.setNativeCallListener(null);

        assertThat(f.hns.listLoadBalancerIds()).isEmpty();
    }
}
