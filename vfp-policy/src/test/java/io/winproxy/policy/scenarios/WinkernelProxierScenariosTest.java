package io.winproxy.policy.scenarios;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.PlanStep;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.testing.TestDsrFeature;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upstream winkernel {@code proxier_test.go} scenarios (winkernel-semantics §7.1), ported black-box: the policy
 * pipeline runs against a fake host and the assertions are on the host's objects. Where winproxy deliberately
 * differs (no source-VIP endpoint made by the policy, so upstream's EPID numbers shift), the test says so.
 */
class WinkernelProxierScenariosTest {
    static final String CLUSTER_IP = "10.20.30.41";
    static final String REMOTE = "192.168.2.3";
    /** Two NodePort Services whose one backend is the same remote IP. */
    private static final ServiceInfo SVC1 = nodePortSvc("svc1", "10.20.30.41", 3001);
    private static final ServiceInfo SVC2 = nodePortSvc("svc2", "10.20.30.42", 3002);
    private static final EndpointSliceInfo SVC1_SLICE = oneEndpoint("svc1", REMOTE, "testhost2");
    private static final EndpointSliceInfo SVC2_SLICE = oneEndpoint("svc2", REMOTE, "testhost2");

    static PolicyHarness overlay(boolean dsr) {
        return new PolicyHarness(NetworkType.OVERLAY, PolicyConfig.defaults().withForwardHealthCheckVip(true),
                List.of(new TestDsrFeature(dsr)));
    }

    static PolicyHarness l2bridge(boolean dsr) {
        return new PolicyHarness(NetworkType.L2BRIDGE, PolicyConfig.defaults().withForwardHealthCheckVip(true),
                List.of(new TestDsrFeature(dsr)));
    }

    /** On l2bridge with DSR: {@link #SVC1} and {@link #SVC2}, both with the one remote backend on testhost2, synced. */
    private static PolicyHarness twoNodePortServicesOnOneRemoteBackend() {
        PolicyHarness h = l2bridge(true);
        h.add(SVC1).add(SVC2).add(SVC1_SLICE).add(SVC2_SLICE).sync();
        return h;
    }

    static ServiceInfo nodePortSvc(String name, String clusterIp, int nodePort) {
        return svc("ns1", name).type("NodePort").clusterIp(clusterIp).port("p80", "TCP", 80, "80", nodePort).build();
    }

    static EndpointSliceInfo oneEndpoint(String svcName, String ip, String node) {
        return slice("ns1", svcName + "-abc", svcName).port("p80", 80).ready(ip, node).build();
    }

    /**
     * Upstream's TestRemoteEndpointDeleteDoesNotAffectLocalEndpointWithSameIP, black-box: a pod of this node takes an
     * IP a leftover remote endpoint still holds. The local endpoint wins for every load balancer (traffic must not
     * leave the node), the remote endpoint is deleted once nothing needs it, and the local one survives the deletes.
     */
    @Test
    void aLocalEndpointWinsOverARemoteOneWithTheSameIpAndSurvivesItsDeletion() {
        PolicyHarness h = l2bridge(false);
        EndpointSliceInfo svc1Eps = oneEndpoint("svc1", REMOTE, "testhost2");
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(svc1Eps).sync();
        String remoteId = h.host.endpointByIp(REMOTE).orElseThrow().id();

        h.host.localEndpoint("EP-LOCAL-2", REMOTE);
        h.add(svc("ns1", "svc3").clusterIp("10.20.30.43").port("p80", "TCP", 80, "80", 0).build())
                .add(oneEndpoint("svc3", REMOTE, PolicyHarness.NODE)).sync();

        assertThat(h.host.lb("10.20.30.43:80/TCP").orElseThrow().endpointIds()).containsExactly("EP-LOCAL-2");
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().endpointIds()).containsExactly("EP-LOCAL-2");
        assertThat(h.host.endpoints()).doesNotContainKey(remoteId);
        assertThat(h.sync().steps()).isEmpty();

        h.delete(svc1Eps).sync();
        assertThat(h.host.endpoints()).containsKey("EP-LOCAL-2");
        assertThat(h.host.lb("10.20.30.43:80/TCP").orElseThrow().endpointIds()).containsExactly("EP-LOCAL-2");
        assertThat(h.sync().steps()).isEmpty();
    }

    @Test
    void overlayServiceWithoutEndpointsStillGetsItsClusterIpRemoteEndpoint() {
        PolicyHarness h = overlay(true);
        h.add(svc("ns1", "svc1").type("NodePort").clusterIp(CLUSTER_IP).port("p80", "TCP", 80, "80", 3001)
                .externalIp("50.60.70.81").clientIpAffinity(0).build());
        h.sync();

        ObservedEndpoint ep = h.host.endpointByIp(CLUSTER_IP).orElseThrow();
        assertThat(ep.remote()).isTrue();
        assertThat(ep.providerAddress()).isEqualTo(PolicyHarness.NODE_IP);
        assertThat(h.lastDesired.remoteEndpoints()).singleElement()
                .satisfies(r -> assertThat(r.macAddress()).isEqualTo(PolicyHarness.HOST_MAC));
        assertThat(h.host.loadBalancers()).isEmpty();
    }

    @Test
    void overlayRemoteBackendGetsARemoteEndpointWithTheSubnetsProviderAddress() {
        PolicyHarness h = overlay(false);
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(oneEndpoint("svc1", REMOTE, "testhost2"));
        h.sync();

        ObservedEndpoint ep = h.host.endpointByIp(REMOTE).orElseThrow();
        assertThat(ep.remote()).isTrue();
        assertThat(ep.providerAddress()).isEqualTo("10.0.0.3");
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().endpointIds()).containsExactly(ep.id());
        assertThat(h.lastDesired.remoteEndpoints()).filteredOn(r -> r.ip().equals(REMOTE)).singleElement()
                .satisfies(r -> assertThat(r.macAddress()).isEqualTo("02-11-c0-a8-02-03"));
    }

    @Test
    void l2bridgeRemoteBackendGetsARemoteEndpointWithoutProviderAddressAndNoClusterIpEndpoint() {
        PolicyHarness h = l2bridge(false);
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(oneEndpoint("svc1", REMOTE, "testhost2"));
        h.sync();

        assertThat(h.host.endpoints().values()).singleElement().satisfies(ep -> {
            assertThat(ep.id()).isEqualTo("EPID-1");
            assertThat(ep.ips()).containsExactly(REMOTE);
            assertThat(ep.remote()).isTrue();
            assertThat(ep.providerAddress()).isEmpty();
        });
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().sourceVip()).isEmpty();
    }

    @Test
    void dsrIsNotAppliedToNodePortWhenExternalTrafficPolicyIsCluster() {
        PolicyHarness h = overlay(true);
        h.add(svc("ns1", "svc1").type("NodePort").clusterIp(CLUSTER_IP).port("p80", "TCP", 80, "80", 3001)
                .etp("Cluster").build()).add(oneEndpoint("svc1", REMOTE, "testhost2"));
        h.sync();

        assertThat(h.host.lb("*:3001/TCP").orElseThrow().flags() & HnsFlags.LB_DSR).isZero();
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().flags()).isEqualTo(HnsFlags.LB_DSR);
    }

    @Test
    void clusterIpWithInternalTrafficPolicyLocalUsesOnlyLocalEndpointsAndIgnoresRemoteAdditions() {
        PolicyHarness h = l2bridge(true);
        h.host.localEndpoint("EP-LOCAL-1", "192.168.4.4");
        ServiceInfo s = svc("ns1", "svc1").clusterIp(CLUSTER_IP).port("p80", 80, 80).itp("Local").build();
        EndpointSliceInfo v1 = slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .build();
        h.add(s).add(v1).sync();
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-1");
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().endpointIds()).containsExactly("EP-LOCAL-1");

        h.host.localEndpoint("EP-LOCAL-2", "192.168.4.5");
        EndpointSliceInfo v2 = slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready("192.168.4.5", "testhost").build();
        h.update(v1, v2).sync();
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-2");
        assertThat(h.host.loadBalancers()).doesNotContainKey("LBID-1");

        EndpointSliceInfo v3 = slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready("192.168.4.5", "testhost").ready(REMOTE, "testhost2").build();
        h.update(v2, v3).sync();
        assertThat(h.lastPlan.steps()).isEmpty();
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-2");
    }

    @Test
    void aRemoteEndpointSharedByTwoServicesSurvivesUntilTheLastUserGoes() {
        PolicyHarness h = twoNodePortServicesOnOneRemoteBackend();
        assertThat(h.host.endpoints()).containsOnlyKeys("EPID-1");

        h.delete(SVC2).delete(SVC2_SLICE).sync();
        assertThat(h.host.endpoints()).containsOnlyKeys("EPID-1");
        assertThat(h.host.lb("10.20.30.42:80/TCP")).isEmpty();

        h.delete(SVC1).delete(SVC1_SLICE).sync();
        assertThat(h.host.endpoints()).isEmpty();
        assertThat(h.host.loadBalancers()).isEmpty();
    }

    @Test
    void changingANodePortAndAddingASlicePortKeepsTheSharedRemoteEndpoint() {
        PolicyHarness h = twoNodePortServicesOnOneRemoteBackend();

        ServiceInfo s1b = svc("ns1", "svc1").type("NodePort").clusterIp("10.20.30.41")
                .port("p80", "TCP", 80, "80", 3003).port("p443", "TCP", 443, "443", 0).build();
        EndpointSliceInfo e1b = slice("ns1", "svc1-abc", "svc1").port("p80", 80).port("p443", 443)
                .ready(REMOTE, "testhost2").build();
        h.update(SVC1, s1b).update(SVC1_SLICE, e1b).sync();

        assertThat(h.host.endpoints()).containsOnlyKeys("EPID-1");
        assertThat(h.host.lb("*:3003/TCP")).isPresent();
        assertThat(h.host.lb("*:3001/TCP")).isEmpty();
        assertThat(h.host.lb("10.20.30.41:443/TCP").orElseThrow().endpointIds()).containsExactly("EPID-1");
    }

    @Test
    void clusterIpLoadBalancerFlagsAreZeroWithoutDsrAndDsrWithIt() {
        for (boolean dsr : new boolean[] {false, true}) {
            PolicyHarness h = overlay(dsr);
            h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(oneEndpoint("svc1", REMOTE, "testhost2")).sync();
            ObservedLoadBalancer lb = h.host.lb("10.20.30.41:80/TCP").orElseThrow();
            assertThat(lb.id()).isEqualTo("LBID-1");
            assertThat(lb.flags()).isEqualTo(dsr ? HnsFlags.LB_DSR : 0);
        }
    }

    @Test
    void anEndpointChangeModifiesTheClusterIpLoadBalancerInPlaceWhenHnsSupportsIt() {
        PolicyHarness h = overlay(true);
        h.modifySupported = true;
        EndpointSliceInfo v1 = oneEndpoint("svc1", REMOTE, "testhost2");
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(v1).sync();
        String oldBackend = h.host.endpointByIp(REMOTE).orElseThrow().id();

        h.update(v1, oneEndpoint("svc1", "10.0.0.3", "testhost2")).sync();

        assertThat(h.host.endpoints()).doesNotContainKey(oldBackend);
        ObservedEndpoint fresh = h.host.endpointByIp("10.0.0.3").orElseThrow();
        assertThat(fresh.providerAddress()).isEqualTo("10.0.0.3");
        ObservedLoadBalancer lb = h.host.lb("10.20.30.41:80/TCP").orElseThrow();
        assertThat(lb.id()).isEqualTo("LBID-1");
        assertThat(lb.endpointIds()).containsExactly(fresh.id());
        assertThat(lb.sourceVip()).as("a node-IP backend makes the source VIP the node IP")
                .isEqualTo(PolicyHarness.NODE_IP);
    }

    @Test
    void anEndpointChangeReplacesTheLoadBalancersWhenHnsCannotModify() {
        PolicyHarness h = overlay(true);
        EndpointSliceInfo v1 = oneEndpoint("svc1", REMOTE, "testhost2");
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(v1).sync();
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-1");
        assertThat(h.host.lb("*:3001/TCP").orElseThrow().id()).isEqualTo("LBID-2");

        h.update(v1, oneEndpoint("svc1", "10.0.0.3", "testhost2")).sync();

        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-3");
        assertThat(h.lastPlan.steps()).filteredOn(s -> s instanceof PlanStep.ReplaceLoadBalancer).hasSize(2);
    }

    @Test
    void externalTrafficPolicyLocalWithALocalBackendGetsDsrExternalLoadBalancersAndAHealthCheck() {
        PolicyHarness h = overlay(true);
        h.host.localEndpoint("EP-LOCAL", REMOTE).localEndpoint("EP-GW", "192.168.2.1");
        h.rootEndpointIp = "192.168.2.1";
        h.add(svc("ns1", "svc1").type("NodePort").clusterIp(CLUSTER_IP).port("p80", "TCP", 80, "80", 3001)
                .etp("Local").ingress("11.21.31.41").build()).add(oneEndpoint("svc1", REMOTE, "testhost"));
        h.sync();

        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().id()).isEqualTo("LBID-1");
        ObservedLoadBalancer nodePort = h.host.lb("*:3001/TCP").orElseThrow();
        assertThat(nodePort.id()).isEqualTo("LBID-2");
        assertThat(nodePort.flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(nodePort.portMappingFlags()).isEqualTo(18);
        ObservedLoadBalancer ingress = h.host.lb("11.21.31.41:80/TCP").orElseThrow();
        assertThat(ingress.id()).isEqualTo("LBID-3");
        assertThat(ingress.flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(ingress.portMappingFlags()).isEqualTo(16);
        ObservedLoadBalancer health = h.host.lb("11.21.31.41:10256/TCP").orElseThrow();
        assertThat(health.id()).isEqualTo("LBID-4");
        assertThat(health.flags()).isZero();
        assertThat(health.endpointIds()).containsExactly("EP-GW");
        assertThat(health.internalPort()).isEqualTo(10256);
    }

    @Test
    void externalTrafficPolicyLocalWithOnlyARemoteBackendProgramsOnlyTheClusterIp() {
        PolicyHarness h = overlay(false);
        h.add(svc("ns1", "svc1").type("NodePort").clusterIp(CLUSTER_IP).port("p80", "TCP", 80, "80", 3001)
                .etp("Local").externalIp("50.60.70.81").ingress("11.21.31.41").build())
                .add(oneEndpoint("svc1", REMOTE, "testhost2"));
        h.sync();

        assertThat(h.host.loadBalancers().values()).singleElement()
                .satisfies(lb -> assertThat(lb.key().toString()).isEqualTo("10.20.30.41:80/TCP"));
    }

    @Test
    void theInternalPortIsTheSlicePortWhenItDiffersFromTheServicePort() {
        PolicyHarness h = overlay(true);
        h.add(svc("ns1", "svc1").clusterIp(CLUSTER_IP).port("p80", 80, 80).build())
                .add(slice("ns1", "svc1-abc", "svc1").port("p80", 8080).ready(REMOTE, "testhost2").build());
        h.sync();

        ObservedLoadBalancer lb = h.host.lb("10.20.30.41:80/TCP").orElseThrow();
        assertThat(lb.id()).isEqualTo("LBID-1");
        assertThat(lb.internalPort()).isEqualTo(8080);
        assertThat(lb.key().externalPort()).isEqualTo(80);
    }

    @Test
    void providerAddressesAreFoundFromRemoteSubnetsOrAreTheNodeIpItself() {
        NodeNetwork node = PolicyHarness.overlay().node();
        assertThat(node.providerAddressOf("10.0.0.3")).contains("10.0.0.3");
        assertThat(node.providerAddressOf(REMOTE)).contains("10.0.0.3");
        assertThat(node.providerAddressOf("11.0.0.1")).isEmpty();
    }

    @Test
    void aPublicBackendGetsTheNodeIpAsProviderAddressAndSourceVip() {
        PolicyHarness h = overlay(false);
        h.add(svc("ns1", "svc1").clusterIp(CLUSTER_IP).port("p80", 80, 80).build())
                .add(oneEndpoint("svc1", "11.0.0.1", "elsewhere")).sync();

        assertThat(h.host.endpointByIp("11.0.0.1").orElseThrow().providerAddress()).isEqualTo(PolicyHarness.NODE_IP);
        assertThat(h.host.lb("10.20.30.41:80/TCP").orElseThrow().sourceVip()).isEqualTo(PolicyHarness.NODE_IP);
    }

    @Test
    void overlayLoadBalancersUseTheSourceVipForPodBackends() {
        PolicyHarness h = overlay(false);
        h.add(nodePortSvc("svc1", CLUSTER_IP, 3001)).add(oneEndpoint("svc1", REMOTE, "testhost2")).sync();
        assertThat(h.host.loadBalancers().values()).allSatisfy(lb ->
                assertThat(lb.sourceVip()).isEqualTo(PolicyHarness.SOURCE_VIP));
    }

    @Test
    void anIpThatIsALocalHnsEndpointIsNeverMadeRemoteEvenWhenKubernetesSaysRemote() {
        PolicyHarness h = l2bridge(false);
        h.host.localEndpoint("EP-LOCAL-1", "192.168.4.4");
        h.add(nodePortSvc("svc1", "10.20.30.41", 3001)).add(oneEndpoint("svc1", "192.168.4.4", "testhost"))
                .add(nodePortSvc("svc2", "10.20.30.42", 3002)).add(oneEndpoint("svc2", "192.168.4.4", "testhost2"))
                .sync();

        assertThat(h.host.endpoints()).containsOnlyKeys("EP-LOCAL-1");
        assertThat(h.host.lb("10.20.30.42:80/TCP").orElseThrow().endpointIds()).containsExactly("EP-LOCAL-1");
    }

    @Test
    void deletingServicesNeverDeletesALocalEndpointWithARemoteEndpointsIp() {
        PolicyHarness h = l2bridge(false);
        h.host.localEndpoint("EP-LOCAL-1", "192.168.4.4");
        EndpointSliceInfo e1 = slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(REMOTE, "testhost2").build();
        EndpointSliceInfo e2 = slice("ns1", "svc2-abc", "svc2").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(REMOTE, "testhost2").build();
        h.add(nodePortSvc("svc1", "10.20.30.41", 3001)).add(e1).add(nodePortSvc("svc2", "10.20.30.42", 3002)).add(e2)
                .sync();
        assertThat(h.host.endpointByIp(REMOTE).orElseThrow().remote()).isTrue();

        h.host.localEndpoint("EP-LOCAL-2", REMOTE);
        h.add(svc("ns1", "svc3").clusterIp("10.20.30.43").port("p80", 80, 80).build())
                .add(oneEndpoint("svc3", REMOTE, "testhost")).sync();
        h.delete(e1).delete(e2).sync();

        assertThat(h.host.endpoints()).containsKey("EP-LOCAL-2").containsKey("EP-LOCAL-1");
        assertThat(h.host.lb("10.20.30.41:80/TCP")).isEmpty();
        assertThat(h.host.lb("10.20.30.43:80/TCP")).isPresent();
    }

    @Test
    void shrinkingTwoServicesBackendsDeletesTheRemoteEndpointsNoLongerUsed() {
        PolicyHarness h = l2bridge(false);
        h.host.localEndpoint("EP-A", "192.168.4.4");
        String b = "192.168.2.3";
        String c = "192.168.2.4";
        String d = "192.168.2.5";
        EndpointSliceInfo e1 = slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(b, "n2").ready(c, "n2").ready(d, "n2").build();
        EndpointSliceInfo e2 = slice("ns1", "svc2-abc", "svc2").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(b, "n2").ready(c, "n2").ready(d, "n2").build();
        h.add(nodePortSvc("svc1", "10.20.30.41", 3001)).add(e1).add(nodePortSvc("svc2", "10.20.30.42", 3002)).add(e2)
                .sync();
        String bId = h.host.endpointByIp(b).orElseThrow().id();

        h.update(e1, slice("ns1", "svc1-abc", "svc1").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(b, "n2").build());
        h.update(e2, slice("ns1", "svc2-abc", "svc2").port("p80", 80).ready("192.168.4.4", "testhost")
                .ready(b, "n2").build());
        h.sync();

        assertThat(h.lastPlan.steps()).filteredOn(s -> s instanceof PlanStep.DeleteRemoteEndpoint)
                .extracting(s -> ((PlanStep.DeleteRemoteEndpoint) s).ip()).containsExactlyInAnyOrder(c, d);
        assertThat(h.host.endpointByIp(b).orElseThrow().id()).isEqualTo(bId);
        assertThat(h.host.endpointByIp(c)).isEmpty();
    }
}
