package io.winproxy.dsr;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.testing.PolicyHarness;
import io.winproxy.policy.trace.TraceResult;
import io.winproxy.policy.trace.Verdict;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Upstream's DSR scenarios (winkernel-semantics §3.3-§3.4, §7) through the whole policy pipeline: trackers -> policy
 * with the DSR feature -> plan -> a fake host, then packet traces.
 */
class DirectServerReturnTest {
    private static final String CLUSTER_IP = "10.20.30.41";
    private static final String INGRESS_IP = "11.21.31.41";
    private static final String EXTERNAL_IP = "50.60.70.81";
    private static final String LOCAL_POD = "192.168.1.10";
    private static final String REMOTE_POD = "192.168.2.20";
    private static final String ROOT_ENDPOINT = "192.168.1.1";

    private static PolicyHarness harness(boolean enableDsr, boolean hnsSupportsDsr, boolean forwardHealthCheckVip) {
        PolicyConfig config = PolicyConfig.defaults().withHnsSupportsDsr(hnsSupportsDsr)
                .withForwardHealthCheckVip(forwardHealthCheckVip);
        PolicyHarness h = new PolicyHarness(NetworkType.OVERLAY, config,
                List.of(new DirectServerReturn(new DsrSettings(enableDsr, hnsSupportsDsr))));
        h.host.localEndpoint("EP-LOCAL", LOCAL_POD).localEndpoint("EP-ROOT", ROOT_ENDPOINT);
        h.rootEndpointIp = ROOT_ENDPOINT;
        return h;
    }

    /** {@code h} after a sync with the LoadBalancer service {@code web} (ETP, ITP: null for the default) and its slice. */
    private static PolicyHarness synced(PolicyHarness h, String etp, String itp, boolean preserveDestination) {
        var service = svc("ns1", "web").type("LoadBalancer").clusterIp(CLUSTER_IP)
                .port("http", "TCP", 80, "8080", 30080).externalIp(EXTERNAL_IP).ingress(INGRESS_IP)
                .healthCheckNodePort(32000);
        if (etp != null) {
            service.etp(etp);
        }
        if (itp != null) {
            service.itp(itp);
        }
        if (preserveDestination) {
            service.annotation("preserve-destination", "true");
        }
        h.add(service.build());
        h.add(slice("ns1", "web-abc", "web").port("http", 8080)
                .ready(LOCAL_POD, PolicyHarness.NODE).ready(REMOTE_POD, "node-2").build());
        h.sync();
        return h;
    }

    private static ObservedLoadBalancer lb(PolicyHarness h, String key) {
        return h.host.lb(key).orElseThrow(() -> new AssertionError("no load balancer " + key + " in "
                + h.host.loadBalancers().values()));
    }

    @Test
    void withoutDsrNoLoadBalancerHasTheDsrFlag() {
        PolicyHarness h = synced(harness(false, true, false), "Cluster", null, false);

        assertThat(h.host.loadBalancers().values()).hasSize(4)
                .allSatisfy(lb -> assertThat(lb.flags() & HnsFlags.LB_DSR).isZero());
    }

    @Test
    void enableDsrMarksTheClusterIpLoadBalancerOnly() {
        PolicyHarness h = synced(harness(true, true, false), "Cluster", null, false);

        assertThat(lb(h, CLUSTER_IP + ":80/TCP").flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(lb(h, "*:30080/TCP").flags()).isZero();
        assertThat(lb(h, EXTERNAL_IP + ":80/TCP").flags()).isZero();
        assertThat(lb(h, INGRESS_IP + ":80/TCP").flags()).isZero();
    }

    @Test
    void externalTrafficPolicyLocalImpliesDsrOnExternalLoadBalancersEvenWithoutEnableDsr() {
        PolicyHarness h = synced(harness(false, true, true), "Local", null, false);

        assertThat(lb(h, CLUSTER_IP + ":80/TCP").flags()).isZero();
        assertThat(lb(h, CLUSTER_IP + ":80/TCP").backendIps()).containsExactlyInAnyOrder(LOCAL_POD, REMOTE_POD);
        ObservedLoadBalancer nodePort = lb(h, "*:30080/TCP");
        assertThat(nodePort.flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(nodePort.portMappingFlags()).isEqualTo(18);
        assertThat(nodePort.backendIps()).containsExactly(LOCAL_POD);
        assertThat(lb(h, EXTERNAL_IP + ":80/TCP").flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(lb(h, EXTERNAL_IP + ":80/TCP").portMappingFlags()).isEqualTo(16);
        assertThat(lb(h, INGRESS_IP + ":80/TCP").flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(lb(h, INGRESS_IP + ":80/TCP").portMappingFlags()).isEqualTo(16);
    }

    @Test
    void theHealthCheckLoadBalancerOfAnEtpLocalIngressIsNeverDsr() {
        PolicyHarness h = synced(harness(true, true, true), "Local", null, false);

        ObservedLoadBalancer health = lb(h, INGRESS_IP + ":32000/TCP");
        assertThat(health.flags()).isZero();
        assertThat(health.portMappingFlags()).isZero();
        assertThat(health.backendIps()).containsExactly(ROOT_ENDPOINT);
    }

    @Test
    void preserveDestinationGivesDsrUseMuxAndPreserveDipOnIngressAndLocalOnlyNodePortBackends() {
        PolicyHarness h = synced(harness(false, true, true), "Cluster", null, true);

        ObservedLoadBalancer ingress = lb(h, INGRESS_IP + ":80/TCP");
        assertThat(ingress.flags()).isEqualTo(HnsFlags.LB_DSR);
        assertThat(ingress.portMappingFlags()).isEqualTo(28);
        assertThat(ingress.backendIps()).containsExactly(LOCAL_POD);
        ObservedLoadBalancer nodePort = lb(h, "*:30080/TCP");
        assertThat(nodePort.backendIps()).containsExactly(LOCAL_POD);
        assertThat(nodePort.flags()).as("ETP=Cluster NodePort is not DSR").isZero();
        assertThat(lb(h, EXTERNAL_IP + ":80/TCP").backendIps()).containsExactlyInAnyOrder(LOCAL_POD, REMOTE_POD);
        ObservedLoadBalancer health = lb(h, INGRESS_IP + ":32000/TCP");
        assertThat(health.portMappingFlags()).isEqualTo(12);
        assertThat(health.flags()).isZero();
    }

    @Test
    void withBothTrafficPoliciesLocalRemoteEndpointsAreNotProgrammed() {
        PolicyHarness h = synced(harness(false, true, false), "Local", "Local", false);

        assertThat(h.lastDesired.remoteEndpoints()).extracting(r -> r.ip()).doesNotContain(REMOTE_POD);
        assertThat(h.host.endpointByIp(REMOTE_POD)).isEmpty();
        assertThat(lb(h, CLUSTER_IP + ":80/TCP").backendIps()).containsExactly(LOCAL_POD);
    }

    @Test
    void onAnHnsWithoutDsrEtpLocalAndPreserveDestinationGetNoDsrAndAWarningNamingTheService() {
        PolicyHarness h = synced(harness(false, false, false), "Local", null, true);

        assertThat(h.host.loadBalancers().values())
                .allSatisfy(lb -> assertThat(lb.flags() & HnsFlags.LB_DSR).isZero());
        assertThat(lb(h, INGRESS_IP + ":80/TCP").portMappingFlags()).isEqualTo(16);
        assertThat(lb(h, "*:30080/TCP").backendIps()).as("ETP=Local stays local-only without DSR")
                .containsExactly(LOCAL_POD);
        assertThat(h.lastDesired.warnings()).filteredOn(w -> w.reason().equals("DsrUnsupported"))
                .extracting(Object::toString)
                .anySatisfy(w -> assertThat(w).startsWith("Service ns1/web:").contains("externalTrafficPolicy"))
                .anySatisfy(w -> assertThat(w).contains("preserve-destination"));
    }

    @Test
    void aPacketToAnEtpLocalIngressReturnsDirectlyFromTheBackend() {
        PolicyHarness h = synced(harness(false, true, false), "Local", null, false);

        TraceResult external = h.trace("203.0.113.7", INGRESS_IP, 80, Protocol.TCP);
        assertThat(external.verdict()).isEqualTo(Verdict.FORWARDED);
        assertThat(external.backends()).containsExactly(LOCAL_POD + ":8080");
        assertThat(external.dsr()).isTrue();
        assertThat(external.sourceAddress()).as("DSR preserves the client IP").isEqualTo("203.0.113.7");

        TraceResult internal = h.trace("192.168.1.50", CLUSTER_IP, 80, Protocol.TCP);
        assertThat(internal.verdict()).isEqualTo(Verdict.FORWARDED);
        assertThat(internal.dsr()).as("ClusterIP is DSR only with --enable-dsr").isFalse();
    }

    @Test
    void aPacketToADsrClusterIpShowsTheDsrReturnPath() {
        PolicyHarness h = synced(harness(true, true, false), "Cluster", null, false);

        TraceResult trace = h.trace("192.168.1.50", CLUSTER_IP, 80, Protocol.TCP);
        assertThat(trace.dsr()).isTrue();
        assertThat(trace.backends()).containsExactlyInAnyOrder(LOCAL_POD + ":8080", REMOTE_POD + ":8080");
        assertThat(String.join("\n", trace.explanation())).containsIgnoringCase("dsr");
    }

    @Test
    void dualStackLoadBalancersCarryDsrAndIpv6FlagsPerFamily() {
        ServiceChangeTracker services = new ServiceChangeTracker();
        EndpointsChangeTracker endpoints = new EndpointsChangeTracker("win-1", Instant.EPOCH);
        services.update(null, svc("ns1", "dual").type("LoadBalancer").clusterIp("10.96.0.50", "fd00::50")
                .ipFamilies("IPv4", "IPv6").port("http", "TCP", 80, "8080", 30081).etp("Local")
                .ingress("11.21.31.50").ingress("2001:db8::50").build());
        endpoints.update(null, slice("ns1", "dual-v4", "dual").port("http", 8080).ready("10.1.0.5", "win-1").build());
        endpoints.update(null, slice("ns1", "dual-v6", "dual").addressType("IPv6").port("http", 8080)
                .ready("fd00:1::5", "win-1").build());
        ProxyState state = new ProxyState();
        state.applyChanges(services, endpoints);
        NodeNetwork node = NodeNetwork.builder(NetworkType.L2BRIDGE, "win-1").networkName("cbr0")
                .nodeIp("10.0.0.4").nodeIp("fd00::4").localEndpoint("10.1.0.5", "fd00:1::5").build();
        PolicyCalculator calculator = new PolicyCalculator(PolicyConfig.defaults(),
                List.of(new DirectServerReturn(new DsrSettings(true, true))));

        DesiredState desired = calculator.calculate(state, node);

        assertThat(desired.loadBalancers()).filteredOn(lb -> lb.key().family() == IpFamily.IPV6)
                .isNotEmpty().allSatisfy(lb -> assertThat(lb.flags()).isEqualTo(HnsFlags.LB_DSR | HnsFlags.LB_IPV6));
        assertThat(desired.loadBalancers()).filteredOn(lb -> lb.key().family() == IpFamily.IPV4)
                .isNotEmpty().allSatisfy(lb -> assertThat(lb.flags()).isEqualTo(HnsFlags.LB_DSR));
        assertThat(desired.loadBalancers()).extracting(DesiredLoadBalancer::kind)
                .contains(LoadBalancerKind.CLUSTER_IP, LoadBalancerKind.NODE_PORT,
                        LoadBalancerKind.LOAD_BALANCER_INGRESS);
    }
}
