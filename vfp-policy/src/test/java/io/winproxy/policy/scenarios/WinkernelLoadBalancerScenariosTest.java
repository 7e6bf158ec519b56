package io.winproxy.policy.scenarios;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.testing.Slice;
import io.winproxy.policy.testing.TestDsrFeature;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upstream {@code loadbalancer_test.go} (winkernel-semantics §7.2) rewritten as sync-level endpoint-change tests, and
 * the dual-stack ingress scenarios of {@code proxier_test.go} (#20-#23).
 */
class WinkernelLoadBalancerScenariosTest {

    static EndpointSliceInfo backends(String svcName, int port, String... ips) {
        Slice s = slice("ns1", svcName + "-abc", svcName).port("p80", port);
        for (String ip : ips) {
            s.ready(ip, "remote-node");
        }
        return s.build();
    }

    static PolicyHarness harness() {
        return new PolicyHarness(NetworkType.L2BRIDGE, PolicyConfig.defaults().withForwardHealthCheckVip(true),
                List.of(new TestDsrFeature(false)));
    }

    @Test
    void clusterIpLoadBalancerIsReplacedOnEndpointChangeThenModifiedInPlaceWhenSupported() {
        PolicyHarness h = harness();
        ServiceInfo s = svc("ns1", "svc1").clusterIp("10.0.0.200").port("p80", 80, 8080).clientIpAffinity(0)
                .externalIp("50.60.70.81").build();
        EndpointSliceInfo two = backends("svc1", 8080, "192.168.2.10", "192.168.2.11");
        EndpointSliceInfo three = backends("svc1", 8080, "192.168.2.10", "192.168.2.11", "192.168.2.12");
        EndpointSliceInfo other = backends("svc1", 8080, "192.168.2.20", "192.168.2.21", "192.168.2.22");
        h.add(s).add(two).sync();
        ObservedLoadBalancer first = h.host.lb("10.0.0.200:80/TCP").orElseThrow();
        assertThat(first.id()).isEqualTo("LBID-1");
        assertThat(first.distributionType()).isEqualTo(HnsFlags.DISTRIBUTION_SOURCE_IP);
        assertThat(first.internalPort()).isEqualTo(8080);

        h.update(two, three).sync();
        assertThat(h.host.lb("10.0.0.200:80/TCP").orElseThrow().id()).isEqualTo("LBID-3");
        assertThat(h.host.loadBalancers()).doesNotContainKey("LBID-1");

        h.modifySupported = true;
        h.update(three, other).sync();
        assertThat(h.host.lb("10.0.0.200:80/TCP").orElseThrow().id()).isEqualTo("LBID-3");
        assertThat(h.host.lb("10.0.0.200:80/TCP").orElseThrow().endpointIds()).hasSize(3);
    }

    @Test
    void nodePortLoadBalancerFollowsTheSameSequence() {
        PolicyHarness h = harness();
        ServiceInfo s = svc("ns1", "svc1").type("NodePort").clusterIp("10.0.0.200").port("p80", "TCP", 80, "8080", 3001)
                .build();
        EndpointSliceInfo two = backends("svc1", 8080, "192.168.2.10", "192.168.2.11");
        EndpointSliceInfo three = backends("svc1", 8080, "192.168.2.10", "192.168.2.11", "192.168.2.12");
        h.add(s).add(two).sync();
        String before = h.host.lb("*:3001/TCP").orElseThrow().id();
        h.update(two, three).sync();
        String after = h.host.lb("*:3001/TCP").orElseThrow().id();
        assertThat(after).isNotEqualTo(before);
        assertThat(h.host.loadBalancers()).doesNotContainKey(before);
        h.modifySupported = true;
        h.update(three, backends("svc1", 8080, "192.168.2.10")).sync();
        assertThat(h.host.lb("*:3001/TCP").orElseThrow().id()).isEqualTo(after);
        assertThat(h.host.lb("*:3001/TCP").orElseThrow().portMappingFlags()).isEqualTo(18);
    }

    @Test
    void externalIpLoadBalancerIsReplacedOnEndpointChange() {
        PolicyHarness h = harness();
        ServiceInfo s = svc("ns1", "svc1").type("LoadBalancer").clusterIp("10.0.0.200")
                .port("p80", "TCP", 80, "8080", 0).externalIp("50.60.70.81").build();
        EndpointSliceInfo two = backends("svc1", 8080, "192.168.2.10", "192.168.2.11");
        h.add(s).add(two).sync();
        ObservedLoadBalancer eip = h.host.lb("50.60.70.81:80/TCP").orElseThrow();
        assertThat(eip.portMappingFlags()).isEqualTo(16);
        h.update(two, backends("svc1", 8080, "192.168.2.10", "192.168.2.11", "192.168.2.12")).sync();
        assertThat(h.host.loadBalancers()).doesNotContainKey(eip.id());
        assertThat(h.host.lb("50.60.70.81:80/TCP").orElseThrow().endpointIds()).hasSize(3);
    }

    @Test
    void ingressLoadBalancerIsReplacedButItsHealthCheckStaysWhenOnlyEndpointsChange() {
        PolicyHarness h = harness();
        h.host.localEndpoint("EP-ROOT", "10.0.0.50");
        h.rootEndpointIp = "10.0.0.50";
        ServiceInfo s = svc("ns1", "svc1").type("LoadBalancer").clusterIp("10.0.0.200")
                .port("p80", "TCP", 80, "8080", 0).ingress("50.60.70.81").build();
        EndpointSliceInfo two = backends("svc1", 8080, "192.168.2.10", "192.168.2.11");
        h.add(s).add(two).sync();
        String ingress = h.host.lb("50.60.70.81:80/TCP").orElseThrow().id();
        String health = h.host.lb("50.60.70.81:10256/TCP").orElseThrow().id();

        h.update(two, backends("svc1", 8080, "192.168.2.10", "192.168.2.11", "192.168.2.12")).sync();

        assertThat(h.host.lb("50.60.70.81:80/TCP").orElseThrow().id()).isNotEqualTo(ingress);
        assertThat(h.host.lb("50.60.70.81:10256/TCP").orElseThrow().id()).isEqualTo(health);
        assertThat(h.host.loadBalancers()).doesNotContainKey(ingress);
    }

    @Test
    void dualStackIngressServiceWithLocalPolicyGetsFourDsrLoadBalancersPerFamily() {
        dualStack("Local", true);
    }

    @Test
    void dualStackIngressServiceWithClusterPolicyGetsFourLoadBalancersPerFamilyWithBothBackends() {
        dualStack("Cluster", false);
    }

    private static void dualStack(String etp, boolean dsr) {
        PolicyHarness run = new PolicyHarness(NetworkType.L2BRIDGE,
                PolicyConfig.defaults().withForwardHealthCheckVip(true), List.of(new TestDsrFeature(dsr)));
        run.host.localEndpoint("EP-LOCAL-4", "192.168.4.4").localEndpoint("EP-LOCAL-6", "fd00::4:4")
                .localEndpoint("EP-GW", "192.168.2.1").localEndpoint("EP-GW6", "fd00::2:1");
        ServiceInfo s = svc("ns1", "svc1").type("LoadBalancer").clusterIp("10.20.30.41", "fd00::21")
                .ipFamilies("IPv4", "IPv6").port("p80", "TCP", 80, "80", 3001).etp(etp)
                .ingress("11.21.31.41").ingress("fd00::1").build();
        Slice v4 = slice("ns1", "svc1-v4", "svc1").port("p80", 80).ready("192.168.4.4", PolicyHarness.NODE);
        Slice v6 = slice("ns1", "svc1-v6", "svc1").addressType("IPv6").port("p80", 80)
                .ready("fd00::4:4", PolicyHarness.NODE);
        if (etp.equals("Cluster")) {
            v4.ready("192.168.2.3", "testhost2");
            v6.ready("fd00::2:3", "testhost2");
        }
        run.nodeIpV6 = "fd00::10";
        run.rootEndpointIp = "192.168.2.1";
        run.rootEndpointIpV6 = "fd00::2:1";
        run.add(s).add(v4.build()).add(v6.build()).sync();

        int base = dsr ? HnsFlags.LB_DSR : 0;
        int backends = dsr ? 1 : 2;
        assertThat(run.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-1");
        assertThat(run.host.lb("*:3001/TCP").orElseThrow().id()).isEqualTo("LBID-2");
        assertThat(run.host.lb("11.21.31.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-3");
        assertThat(run.host.lb("11.21.31.41:10256/TCP").orElseThrow().id()).isEqualTo("LBID-4");
        assertThat(run.host.lb("[fd00::21]:80/TCP").orElseThrow().id()).isEqualTo("LBID-5");
        assertThat(run.host.lb("[fd00::1]:80/TCP").orElseThrow().id()).isEqualTo("LBID-7");
        assertThat(run.host.lb("[fd00::1]:10256/TCP").orElseThrow().id()).isEqualTo("LBID-8");
        ObservedLoadBalancer v6NodePort = run.host.loadBalancers().get("LBID-6");
        assertThat(v6NodePort.key().frontendVip()).isEmpty();
        assertThat(v6NodePort.flags()).isEqualTo(base | HnsFlags.LB_IPV6);
        for (String key : List.of("*:3001/TCP", "11.21.31.41:80/TCP")) {
            ObservedLoadBalancer lb = run.host.lb(key).orElseThrow();
            assertThat(lb.flags()).as(key).isEqualTo(base);
            assertThat(lb.endpointIds()).as(key).hasSize(backends);
        }
        ObservedLoadBalancer v6Ingress = run.host.lb("[fd00::1]:80/TCP").orElseThrow();
        assertThat(v6Ingress.flags()).isEqualTo(base | HnsFlags.LB_IPV6);
        assertThat(v6Ingress.endpointIds()).hasSize(backends);
        assertThat(run.host.lb("[fd00::1]:10256/TCP").orElseThrow().flags()).isEqualTo(HnsFlags.LB_IPV6);
        assertThat(run.host.lb("10.20.30.41:80/TCP").orElseThrow().flags()).as("--enable-dsr").isEqualTo(base);
    }
}
