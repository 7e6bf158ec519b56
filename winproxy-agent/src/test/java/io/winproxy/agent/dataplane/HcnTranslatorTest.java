package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HcnTranslatorTest {
    private static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);

    @Test
    void aDesiredLoadBalancerBecomesAV2DocumentWithOnePortMapping() {
        DesiredLoadBalancer lb = new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.TCP, 80), 8080,
                List.of("10.244.1.5", "10.244.2.6"), "10.244.0.2", 1, 0, 2);
        HostComputeLoadBalancer hcn = HcnTranslator.toHcn(lb, List.of("ep-a", "ep-b"));
        assertThat(hcn.id()).isNull();
        assertThat(hcn.frontendVips()).containsExactly("10.96.0.10");
        assertThat(hcn.hostComputeEndpoints()).containsExactly("ep-a", "ep-b");
        assertThat(hcn.portMappings()).containsExactly(new LoadBalancerPortMapping(6, 8080, 80, 2, 0));
        assertThat(hcn.sourceVip()).isEqualTo("10.244.0.2");
        assertThat(hcn.flags()).isEqualTo(1);
        assertThat(hcn.schemaVersion()).isEqualTo(SchemaVersion.V2);
    }

    @Test
    void aNodePortLoadBalancerHasNoFrontendVip() {
        DesiredLoadBalancer lb = new DesiredLoadBalancer(WEB, LoadBalancerKind.NODE_PORT,
                new LoadBalancerKey(IpFamily.IPV4, "", Protocol.UDP, 30053), 53, List.of(), "", 0, 0, 0);
        HostComputeLoadBalancer hcn = HcnTranslator.toHcn(lb, List.of());
        assertThat(hcn.frontendVips()).isEmpty();
        assertThat(hcn.portMappings().get(0).protocol()).isEqualTo(17);
    }

    @Test
    void anObservedLoadBalancerResolvesBackendsAndItsKey() {
        HostComputeLoadBalancer hcn = new HostComputeLoadBalancer("lb-1", List.of("EP-A", "ep-gone"), "",
                List.of("10.96.0.10"), List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 0)), SchemaVersion.V2, 0);
        ObservedLoadBalancer observed = HcnTranslator.toObserved(hcn,
                Map.of("ep-a", List.of("10.244.1.5", "fd00::5")));
        assertThat(observed.key()).isEqualTo(new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.TCP, 80));
        assertThat(observed.backendIps()).containsExactly("10.244.1.5");
        assertThat(observed.endpointIds()).containsExactly("ep-a", "ep-gone");
        assertThat(observed.internalPort()).isEqualTo(8080);
    }

    @Test
    void flagBitsWinproxyDoesNotWriteAreLeftOutOfTheObservedLoadBalancerSoTheyNeverCountAsADifference() {
        DesiredLoadBalancer desired = new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.TCP, 80), 8080, List.of("10.244.1.5"),
                "", DesiredLoadBalancer.FLAG_DSR, 16, 0);
        // What an HNS version that adds bits of its own reads back (the emulator's extra-flags variant).
        HostComputeLoadBalancer hcn = new HostComputeLoadBalancer("lb-1", List.of("EP-A"), "",
                List.of("10.96.0.10"), List.of(new LoadBalancerPortMapping(6, 8080, 80, 0, 16 | 0x4000)),
                SchemaVersion.V2, 1 | 0x100);
        var observed = HcnTranslator.toObserved(hcn, Map.of("ep-a", List.of("10.244.1.5")));
        assertThat(observed.flags()).isEqualTo(1);
        assertThat(observed.portMappingFlags()).isEqualTo(16);
        assertThat(io.winproxy.policy.plan.PlanCalculator.identical(observed, desired)).isTrue();
    }

    @Test
    void aLoadBalancerWithSeveralPortMappingsHasNoKeyAndIsNeverAdopted() {
        HostComputeLoadBalancer hcn = new HostComputeLoadBalancer("lb-1", List.of(), "", List.of("10.96.0.10"),
                List.of(new LoadBalancerPortMapping(6, 80, 80, 0, 0), new LoadBalancerPortMapping(6, 81, 81, 0, 0)),
                SchemaVersion.V2, 0);
        assertThat(HcnTranslator.toObserved(hcn, Map.of()).key()).isNull();
    }

    @Test
    void aRemoteOverlayEndpointCarriesItsProviderAddressBothWays() {
        HostComputeEndpoint hcn = HcnTranslator.toHcn(new DesiredRemoteEndpoint("10.244.2.6", "192.168.1.12",
                "02-11-0a-f4-02-06"));
        assertThat(hcn.isRemote()).isTrue();
        assertThat(hcn.macAddress()).isEqualTo("02-11-0a-f4-02-06");
        ObservedEndpoint observed = HcnTranslator.toObserved(hcn);
        assertThat(observed.ips()).containsExactly("10.244.2.6");
        assertThat(observed.remote()).isTrue();
        assertThat(observed.providerAddress()).isEqualTo("192.168.1.12");
    }

    @Test
    void anL2BridgeRemoteEndpointHasNoPolicies() {
        HostComputeEndpoint hcn = HcnTranslator.toHcn(new DesiredRemoteEndpoint("10.244.2.6", "", "02-11-0a-f4-02-06"));
        assertThat(hcn.policies()).isEmpty();
        assertThat(HcnTranslator.toObserved(hcn).providerAddress()).isEmpty();
    }
}
