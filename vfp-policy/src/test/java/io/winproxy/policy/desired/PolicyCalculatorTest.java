package io.winproxy.policy.desired;

import static io.winproxy.policy.testing.Slice.slice;
import static io.winproxy.policy.testing.Svc.svc;
import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.testing.TestDsrFeature;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The winkernel case table (winkernel-semantics §3.4) and winproxy's differences, at the desired-state level. */
class PolicyCalculatorTest {
    static final String NODE = "node-a";
    static final String LOCAL_1 = "10.244.0.5";
    static final String LOCAL_2 = "10.244.0.6";
    static final String REMOTE_1 = "10.244.1.5";
    static final String REMOTE_2 = "10.244.1.6";

    static NodeNetwork overlayNode() {
        return NodeNetwork.builder(NetworkType.OVERLAY, NODE).nodeIp("10.0.0.1").sourceVip("10.244.0.2")
                .hostMac("00-15-5d-00-00-01").remoteSubnet("10.244.1.0/24", "10.0.0.2")
                .localEndpoint(LOCAL_1, LOCAL_2).rootEndpoint("10.244.0.1").zone("zone-a").build();
    }

    static NodeNetwork l2bridgeNode() {
        return NodeNetwork.builder(NetworkType.L2BRIDGE, NODE).nodeIp("10.0.0.1").nodeIp("fd00::1")
                .sourceVip("10.244.0.2").localEndpoint(LOCAL_1, LOCAL_2, "fd00:244::5").rootEndpoint("10.244.0.1")
                .zone("zone-a").build();
    }

    /** Runs services and slices through the trackers and the calculator. */
    static final class Run {
        final ServiceChangeTracker services = new ServiceChangeTracker();
        final EndpointsChangeTracker endpoints = new EndpointsChangeTracker(NODE, Instant.EPOCH);
        final ProxyState state = new ProxyState();
        final PolicyCalculator calculator;
        NodeNetwork node = overlayNode();

        Run(PolicyConfig config, List<LoadBalancerFeature> features) {
            calculator = new PolicyCalculator(config, features);
        }

        Run() {
            this(PolicyConfig.defaults(), List.of());
        }

        Run with(ServiceInfo svc) {
            services.update(null, svc);
            return this;
        }

        Run with(EndpointSliceInfo slice) {
            endpoints.update(null, slice);
            return this;
        }

        Run on(NodeNetwork value) {
            node = value;
            return this;
        }

        DesiredState calculate() {
            state.applyChanges(services, endpoints);
            return calculator.calculate(state, node);
        }
    }

    static EndpointSliceInfo mixed(String svc) {
        return slice("default", svc + "-1", svc).port("http", 8080).ready(LOCAL_1, NODE).ready(REMOTE_1, "node-b")
                .build();
    }

    static DesiredLoadBalancer lb(DesiredState s, LoadBalancerKind kind) {
        return s.loadBalancers().stream().filter(l -> l.kind() == kind).findFirst().orElseThrow();
    }

    @Test
    void clusterIpServiceBalancesOverReadyEndpointsOfAllNodesWithTheSourceVip() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(mixed("web")).calculate();

        DesiredLoadBalancer lb = lb(s, LoadBalancerKind.CLUSTER_IP);
        assertThat(lb.key().toString()).isEqualTo("10.96.0.10:80/TCP");
        assertThat(lb.internalPort()).isEqualTo(8080);
        assertThat(lb.backends()).containsExactly(LOCAL_1, REMOTE_1);
        assertThat(lb.flags()).isZero();
        assertThat(lb.portMappingFlags()).isZero();
        assertThat(lb.distributionType()).isZero();
        assertThat(lb.sourceVip()).isEqualTo("10.244.0.2");
        assertThat(s.loadBalancers()).hasSize(1);
        assertThat(s.remoteEndpoints()).extracting(DesiredRemoteEndpoint::ip).containsExactly("10.96.0.10",
                "10.244.1.5");
        assertThat(s.remoteEndpoints()).filteredOn(r -> r.ip().equals(REMOTE_1)).singleElement()
                .isEqualTo(new DesiredRemoteEndpoint(REMOTE_1, "10.0.0.2", "02-11-0a-f4-01-05"));
        assertThat(s.remoteEndpoints()).filteredOn(r -> r.ip().equals("10.96.0.10")).singleElement()
                .isEqualTo(new DesiredRemoteEndpoint("10.96.0.10", "10.0.0.1", "00-15-5d-00-00-01"));
    }

    @Test
    void l2bridgeLoadBalancersHaveAnEmptySourceVipAndRemoteEndpointsNoProviderAddress() {
        DesiredState s = new Run().on(l2bridgeNode())
                .with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(mixed("web")).calculate();

        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).sourceVip()).isEmpty();
        assertThat(s.remoteEndpoints()).containsExactly(new DesiredRemoteEndpoint(REMOTE_1, "", "02-11-0a-f4-01-05"));
    }

    @Test
    void internalTrafficPolicyLocalUsesOnlyLocalEndpointsAndNoLoadBalancerWithoutThem() {
        ServiceInfo svc = svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).itp("Local").build();
        assertThat(lb(new Run().with(svc).with(mixed("web")).calculate(), LoadBalancerKind.CLUSTER_IP).backends())
                .containsExactly(LOCAL_1);

        DesiredState none = new Run().with(svc).with(slice("default", "web-1", "web").port("http", 8080)
                .ready(REMOTE_1, "node-b").build()).calculate();
        assertThat(none.loadBalancers()).isEmpty();
    }

    @Test
    void nodePortWithExternalTrafficPolicyClusterUsesAllEndpointsAndFlags18WithoutVip() {
        DesiredState s = new Run().with(svc("default", "web").type("NodePort").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).build()).with(mixed("web")).calculate();

        DesiredLoadBalancer np = lb(s, LoadBalancerKind.NODE_PORT);
        assertThat(np.key().frontendVip()).isEmpty();
        assertThat(np.key().externalPort()).isEqualTo(30080);
        assertThat(np.portMappingFlags()).isEqualTo(18);
        assertThat(np.flags()).isZero();
        assertThat(np.backends()).containsExactly(LOCAL_1, REMOTE_1);
    }

    @Test
    void nodePortWithExternalTrafficPolicyLocalUsesLocalEndpointsWhileClusterIpUsesAll() {
        DesiredState s = new Run().with(svc("default", "web").type("NodePort").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).etp("Local").build()).with(mixed("web")).calculate();

        assertThat(lb(s, LoadBalancerKind.NODE_PORT).backends()).containsExactly(LOCAL_1);
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(LOCAL_1, REMOTE_1);
    }

    @Test
    void everyExternalIpGetsALoadBalancerWithVipExternalIpFlag() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .externalIp("192.0.2.10", "192.0.2.11").etp("Local").build()).with(mixed("web")).calculate();

        assertThat(s.loadBalancers()).filteredOn(l -> l.kind() == LoadBalancerKind.EXTERNAL_IP)
                .extracting(l -> l.key().frontendVip()).containsExactly("192.0.2.10", "192.0.2.11");
        assertThat(s.loadBalancers()).filteredOn(l -> l.kind() == LoadBalancerKind.EXTERNAL_IP).allSatisfy(l -> {
            assertThat(l.portMappingFlags()).isEqualTo(16);
            assertThat(l.backends()).containsExactly(LOCAL_1);
        });
    }

    @Test
    void loadBalancerIngressGetsOneLoadBalancerPerVipIngressIpOnly() {
        DesiredState s = new Run().with(svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).ingress("203.0.113.7").ingress(null, "lb.example.com", null)
                .ingress("203.0.113.8", null, "Proxy").build()).with(mixed("web")).calculate();

        assertThat(s.loadBalancers()).filteredOn(l -> l.kind() == LoadBalancerKind.LOAD_BALANCER_INGRESS)
                .singleElement().satisfies(l -> {
                    assertThat(l.key().frontendVip()).isEqualTo("203.0.113.7");
                    assertThat(l.portMappingFlags()).isEqualTo(16);
                    assertThat(l.backends()).containsExactly(LOCAL_1, REMOTE_1);
                });
        assertThat(s.loadBalancers()).extracting(DesiredLoadBalancer::kind).doesNotContain(
                LoadBalancerKind.HEALTH_CHECK);
    }

    @Test
    void preserveDestinationThroughTheFeatureGivesDsrAndFlags28AndLocalNodePortBackends() {
        DesiredState s = new Run(PolicyConfig.defaults(), List.of(new TestDsrFeature(false)))
                .with(svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10")
                        .port("http", "TCP", 80, "8080", 30080).ingress("203.0.113.7")
                        .annotation("preserve-destination", "true").build()).with(mixed("web")).calculate();

        DesiredLoadBalancer ingress = lb(s, LoadBalancerKind.LOAD_BALANCER_INGRESS);
        assertThat(ingress.portMappingFlags()).isEqualTo(28);
        assertThat(ingress.dsr()).isTrue();
        assertThat(ingress.backends()).containsExactly(LOCAL_1);
        assertThat(lb(s, LoadBalancerKind.NODE_PORT).backends()).containsExactly(LOCAL_1);
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(LOCAL_1, REMOTE_1);
    }

    @Test
    void healthCheckLoadBalancerForwardsTheHealthCheckNodePortToTheRootEndpointOverTcp() {
        DesiredState s = new Run(PolicyConfig.defaults().withForwardHealthCheckVip(true), List.of())
                .with(svc("default", "dns").type("LoadBalancer").clusterIp("10.96.0.10")
                        .port("dns", "UDP", 53, "53", 30053).ingress("203.0.113.7").etp("Local")
                        .healthCheckNodePort(32000).clientIpAffinity(0).build())
                .with(slice("default", "dns-1", "dns").port("dns", "UDP", 53).ready(REMOTE_1, "node-b").build())
                .calculate();

        DesiredLoadBalancer hc = lb(s, LoadBalancerKind.HEALTH_CHECK);
        assertThat(hc.key().toString()).isEqualTo("203.0.113.7:32000/TCP");
        assertThat(hc.internalPort()).isEqualTo(32000);
        assertThat(hc.backends()).containsExactly("10.244.0.1");
        assertThat(hc.distributionType()).isZero();
        assertThat(hc.flags()).isZero();
        assertThat(s.loadBalancers()).extracting(DesiredLoadBalancer::kind)
                .doesNotContain(LoadBalancerKind.LOAD_BALANCER_INGRESS);
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).distributionType()).isEqualTo(2);
        assertThat(s.remoteEndpoints()).extracting(DesiredRemoteEndpoint::ip).doesNotContain("10.244.0.1");
    }

    @Test
    void clientIpAffinityUsesSourceIpDistributionAndWarnsAboutANonDefaultTimeout() {
        DesiredState s = new Run().with(svc("default", "web").type("NodePort").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).clientIpAffinity(600).build()).with(mixed("web")).calculate();

        assertThat(s.loadBalancers()).allSatisfy(l -> assertThat(l.distributionType()).isEqualTo(2));
        assertThat(s.warnings()).singleElement().satisfies(w -> {
            assertThat(w.reason()).isEqualTo("SessionAffinityTimeoutIgnored");
            assertThat(w.name()).isEqualTo("web");
            assertThat(w.message()).contains("600");
        });
        DesiredState dflt = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .clientIpAffinity(10800).build()).with(mixed("web")).calculate();
        assertThat(dflt.warnings()).isEmpty();
    }

    @Test
    void whenAllEndpointsAreTerminatingServingOnesAreUsedForEveryLoadBalancer() {
        DesiredState s = new Run().with(svc("default", "web").type("NodePort").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).build())
                .with(slice("default", "web-1", "web").port("http", 8080)
                        .endpoint(LOCAL_1, NODE, false, true, true).endpoint(REMOTE_1, "node-b", false, false, true)
                        .build()).calculate();

        assertThat(s.loadBalancers()).hasSize(2).allSatisfy(l -> assertThat(l.backends()).containsExactly(LOCAL_1));
    }

    @Test
    void withNoServingEndpointsNothingIsProgrammed() {
        DesiredState s = new Run().with(svc("default", "web").type("LoadBalancer").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).ingress("203.0.113.7").build())
                .with(slice("default", "web-1", "web").port("http", 8080)
                        .endpoint(LOCAL_1, NODE, false, false, false).build()).calculate();

        assertThat(s.loadBalancers()).isEmpty();
    }

    @Test
    void withBothTrafficPoliciesLocalAndDsrRemoteEndpointsAreNotProgrammed() {
        ServiceInfo svc = svc("default", "web").type("NodePort").clusterIp("10.96.0.10")
                .port("http", "TCP", 80, "8080", 30080).itp("Local").etp("Local").build();
        DesiredState s = new Run(PolicyConfig.defaults(), List.of(new TestDsrFeature(false))).with(svc)
                .with(slice("default", "web-1", "web").port("http", 8080).ready(REMOTE_1, "node-b").build())
                .calculate();

        assertThat(s.loadBalancers()).isEmpty();
        assertThat(s.remoteEndpoints()).extracting(DesiredRemoteEndpoint::ip).containsExactly("10.96.0.10");
    }

    @Test
    void mixedTargetPortsUseTheMostCommonPortAndWarnAboutTheExcludedEndpoints() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(slice("default", "web-1", "web").port("http", 8080).ready(LOCAL_1, NODE)
                        .ready(REMOTE_1, "node-b").build())
                .with(slice("default", "web-2", "web").port("http", 9090).ready(REMOTE_2, "node-b").build())
                .calculate();

        DesiredLoadBalancer lb = lb(s, LoadBalancerKind.CLUSTER_IP);
        assertThat(lb.internalPort()).isEqualTo(8080);
        assertThat(lb.backends()).containsExactly(LOCAL_1, REMOTE_1);
        assertThat(s.warnings()).singleElement().satisfies(w -> {
            assertThat(w.reason()).isEqualTo("MixedTargetPorts");
            assertThat(w.message()).contains("10.244.1.6:9090").doesNotContain("10.244.1.5:8080");
        });
        assertThat(s.remoteEndpoints()).extracting(DesiredRemoteEndpoint::ip).doesNotContain(REMOTE_2);
    }

    @Test
    void mixedTargetPortsTieGoesToTheLowestPort() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(slice("default", "web-1", "web").port("http", 9090).ready(REMOTE_1, "node-b").build())
                .with(slice("default", "web-2", "web").port("http", 8080).ready(REMOTE_2, "node-b").build())
                .calculate();

        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).internalPort()).isEqualTo(8080);
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(REMOTE_2);
    }

    @Test
    void moreBackendsThanTheLimitAreCutWithAWarning() {
        var b = slice("default", "web-1", "web").port("http", 8080);
        IntStream.range(1, 8).forEach(i -> b.ready("10.244.1." + i, "node-b"));
        DesiredState s = new Run(PolicyConfig.defaults().withMaxBackendsPerLoadBalancer(5), List.of())
                .with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build()).with(b.build())
                .calculate();

        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).hasSize(5).startsWith("10.244.1.1");
        assertThat(s.warnings()).extracting(PolicyWarning::reason).containsExactly("BackendsCut");
        assertThat(s.warnings().get(0).message()).isEqualTo("port http/TCP: ClusterIP load balancer 10.96.0.10 "
                + "port 80 has 7 backends, more than the 5 winproxy programs per load balancer; 5 are programmed "
                + "(this node's first, then by IP), 2 are not: 10.244.1.6, 10.244.1.7");
        assertThat(s.remoteEndpoints()).hasSize(6);
    }

    @Test
    void aCutKeepsThisNodesEndpointsFirstThenTheFirstByIp() {
        var b = slice("default", "web-1", "web").port("http", 8080);
        IntStream.range(1, 8).forEach(i -> b.ready("10.244.1." + i, "node-b"));
        b.ready(LOCAL_2, NODE);
        DesiredState s = new Run(PolicyConfig.defaults().withMaxBackendsPerLoadBalancer(3), List.of())
                .with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build()).with(b.build())
                .calculate();

        // 10.244.0.6 sorts first anyway; the point is that it is kept although the limit is small.
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(LOCAL_2, "10.244.1.1",
                "10.244.1.2");
        assertThat(BackendCut.keep(List.of("10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"),
                ip -> ip.equals("10.0.0.4"), 2)).as("a local backend that sorts last").containsExactly("10.0.0.1",
                "10.0.0.4");
    }

    @Test
    void aLimitLearntWhileRunningRecomputesEveryServicePort() {
        var b = slice("default", "web-1", "web").port("http", 8080);
        IntStream.range(1, 71).forEach(i -> b.ready("10.244.1." + i, "node-b"));
        Run run = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(b.build());
        assertThat(lb(run.calculate(), LoadBalancerKind.CLUSTER_IP).backends()).hasSize(70);

        assertThat(run.calculator.limitBackends(64)).isTrue();
        assertThat(run.calculator.limitBackends(64)).as("unchanged").isFalse();
        DesiredState s = run.calculate();
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).hasSize(64);
        assertThat(s.warnings()).extracting(PolicyWarning::reason).containsExactly("BackendsCut");
        assertThat(s.warnings().get(0).message()).contains("has 70 backends, more than the 64");
    }

    @Test
    void byDefaultAServiceOf5000EndpointsProgramsThemAllAndThe5001stIsCutWithAWarningNamingIt() {
        var b = slice("default", "web-1", "web").port("http", 8080);
        IntStream.range(0, 5000).forEach(i -> b.ready("10.245." + (i / 250) + "." + (i % 250 + 1), "node-b"));
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(b.build()).calculate();
        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).hasSize(5000);
        assertThat(s.warnings()).isEmpty();

        b.ready("10.245.99.1", "node-b");
        DesiredState over = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .build()).with(b.build()).calculate();
        assertThat(lb(over, LoadBalancerKind.CLUSTER_IP).backends()).hasSize(5000).doesNotContain("10.245.99.1");
        assertThat(over.warnings()).extracting(PolicyWarning::reason).containsExactly("BackendsCut");
        assertThat(over.warnings().get(0).message()).endsWith("1 are not: 10.245.99.1");
    }

    @Test
    void ipv6OnOverlayIsNotProgrammedAndWarned() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10", "fd00:96::10")
                .ipFamilies("IPv4", "IPv6").port("http", 80, 8080).build()).with(mixed("web")).calculate();

        assertThat(s.loadBalancers()).extracting(l -> l.key().frontendVip()).containsExactly("10.96.0.10");
        assertThat(s.warnings()).extracting(PolicyWarning::reason).containsExactly("IPFamilyNotSupported");
    }

    @Test
    void ipv6OnL2bridgeNeedsTheHnsCapability() {
        ServiceInfo svc = svc("default", "web").clusterIp("fd00:96::10").ipFamilies("IPv6")
                .port("http", 80, 8080).build();
        EndpointSliceInfo v6 = slice("default", "web-6", "web").addressType("IPv6").port("http", 8080)
                .ready("fd00:244::5", NODE).build();
        DesiredState ok = new Run().on(l2bridgeNode()).with(svc).with(v6).calculate();
        assertThat(lb(ok, LoadBalancerKind.CLUSTER_IP).ipv6()).isTrue();
        assertThat(lb(ok, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly("fd00:244::5");

        DesiredState no = new Run(PolicyConfig.defaults().withHnsSupportsIpv6DualStack(false), List.of())
                .on(l2bridgeNode()).with(svc).with(v6).calculate();
        assertThat(no.loadBalancers()).isEmpty();
        assertThat(no.warnings()).extracting(PolicyWarning::reason).containsExactly("IPFamilyNotSupported");
    }

    @Test
    void zoneHintsRestrictTheClusterLoadBalancerToThisZone() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .trafficDistribution("PreferClose").build())
                .with(slice("default", "web-1", "web").port("http", 8080)
                        .hinted(REMOTE_1, "node-b", "zone-a", List.of("zone-a"), List.of())
                        .hinted(REMOTE_2, "node-c", "zone-b", List.of("zone-b"), List.of()).build())
                .calculate();

        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(REMOTE_1);
    }

    @Test
    void nodeHintsPreferThisNodeWhenTheFeatureIsEnabled() {
        ServiceInfo svc = svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080)
                .trafficDistribution("PreferSameNode").build();
        EndpointSliceInfo slice = slice("default", "web-1", "web").port("http", 8080)
                .hinted(LOCAL_1, NODE, "zone-a", List.of("zone-a"), List.of(NODE))
                .hinted(REMOTE_1, "node-b", "zone-a", List.of("zone-a"), List.of("node-b")).build();
        assertThat(lb(new Run().with(svc).with(slice).calculate(), LoadBalancerKind.CLUSTER_IP).backends())
                .containsExactly(LOCAL_1);
        DesiredState noGate = new Run(PolicyConfig.defaults().withEnabledFeatures(Set.of()), List.of()).with(svc)
                .with(slice).calculate();
        assertThat(lb(noGate, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(LOCAL_1, REMOTE_1);
    }

    @Test
    void twoServicesClaimingOneExternalIpAndPortKeepTheFirstAndWarnOnTheSecond() {
        DesiredState s = new Run()
                .with(svc("default", "a").clusterIp("10.96.0.10").port("http", 80, 8080).externalIp("192.0.2.10")
                        .build()).with(mixed("a"))
                .with(svc("default", "b").clusterIp("10.96.0.11").port("http", 80, 8080).externalIp("192.0.2.10")
                        .build()).with(mixed("b")).calculate();

        assertThat(s.loadBalancers()).filteredOn(l -> l.kind() == LoadBalancerKind.EXTERNAL_IP).singleElement()
                .satisfies(l -> assertThat(l.service().name()).isEqualTo("a"));
        assertThat(s.warnings()).singleElement().satisfies(w -> {
            assertThat(w.name()).isEqualTo("b");
            assertThat(w.reason()).isEqualTo("LoadBalancerConflict");
        });
    }

    @Test
    void localEndpointsWithoutACniEndpointAreSkipped() {
        DesiredState s = new Run().with(svc("default", "web").clusterIp("10.96.0.10").port("http", 80, 8080).build())
                .with(slice("default", "web-1", "web").port("http", 8080).ready("10.244.0.99", NODE)
                        .ready(REMOTE_1, "node-b").build()).calculate();

        assertThat(lb(s, LoadBalancerKind.CLUSTER_IP).backends()).containsExactly(REMOTE_1);
    }

    @Test
    void onlyTheChangedServiceIsRecomputed() {
        Run run = new Run();
        for (int i = 0; i < 20; i++) {
            run.with(svc("default", "s" + i).clusterIp("10.96.0." + (10 + i)).port("http", 80, 8080)
                    .port("https", 443, 8443).build()).with(mixed("s" + i));
        }
        DesiredState first = run.calculate();
        assertThat(run.calculator.lastRecomputedCount()).isEqualTo(40);

        EndpointSliceInfo old = mixed("s3");
        run.endpoints.update(old, slice("default", "s3-1", "s3").port("http", 8080).ready(REMOTE_2, "node-b")
                .build());
        DesiredState second = run.calculate();
        assertThat(run.calculator.lastRecomputedCount()).as("only s3's http port has new endpoints").isEqualTo(1);
        assertThat(second.loadBalancers()).hasSize(first.loadBalancers().size());
        assertThat(second.loadBalancers()).filteredOn(l -> l.service().name().equals("s3")).singleElement()
                .satisfies(l -> assertThat(l.backends()).containsExactly(REMOTE_2));

        run.calculate();
        assertThat(run.calculator.lastRecomputedCount()).isZero();
        run.on(NodeNetwork.builder(NetworkType.OVERLAY, NODE).nodeIp("10.0.0.1").sourceVip("10.244.0.3")
                .hostMac("00-15-5d-00-00-01").remoteSubnet("10.244.1.0/24", "10.0.0.2")
                .localEndpoint(LOCAL_1, LOCAL_2).build()).calculate();
        assertThat(run.calculator.lastRecomputedCount()).isEqualTo(40);
    }
}
