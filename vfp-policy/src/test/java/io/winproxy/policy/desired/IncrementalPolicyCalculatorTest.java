package io.winproxy.policy.desired;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.testing.Slice;
import io.winproxy.policy.testing.Svc;
import io.winproxy.policy.testing.TestDsrFeature;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The incrementally kept {@link DesiredState} equals a plain assembly from scratch after random sequences of Service,
 * EndpointSlice and node changes: same lists in the same order, lookups that agree with the lists, and
 * {@link DesiredState.Changes} that name exactly what differs. The inputs are drawn from small pools so that keys
 * collide (conflicts), IPs are shared between Services, a backend IP can be a cluster IP, and ports come and go.
 */
class IncrementalPolicyCalculatorTest {
    private static final String NODE = "node-a";
    private static final List<String> CLUSTER_IPS = List.of("10.96.0.1", "10.96.0.2", "10.96.0.3", "10.96.0.4",
            "10.96.0.5", "10.96.0.6");
    private static final List<String> CLUSTER_IPS_V6 = List.of("fd00:96::1", "fd00:96::2");
    private static final List<String> LOCAL_IPS = List.of("10.244.0.5", "10.244.0.6", "10.244.0.7");
    private static final List<String> REMOTE_IPS = List.of("10.244.1.5", "10.244.1.6", "10.244.2.5", "10.244.2.6",
            "192.0.2.50", "10.0.0.2", "10.96.0.1");
    private static final List<String> IPS_V6 = List.of("fd00:244::5", "fd00:244:1::5", "fd00:244:1::6");
    private static final List<String> EXTERNAL_IPS = List.of("192.0.2.10", "192.0.2.11");
    private static final List<String> INGRESS_IPS = List.of("203.0.113.8", "203.0.113.9");

    static Stream<Arguments> setups() {
        PolicyConfig defaults = PolicyConfig.defaults();
        PolicyConfig tight = defaults.withForwardHealthCheckVip(true).withMaxBackendsPerLoadBalancer(3)
                .withHnsSupportsSessionAffinity(false);
        return Stream.of(
                Arguments.of(11L, false, defaults, List.of()),
                Arguments.of(12L, false, tight, List.of()),
                Arguments.of(13L, true, defaults, List.of()),
                Arguments.of(14L, true, tight, List.of(new TestDsrFeature(true))),
                Arguments.of(15L, false, defaults.withForwardHealthCheckVip(true), List.of(new TestDsrFeature(false))),
                Arguments.of(16L, true, tight.withHnsSupportsIpv6DualStack(false), List.of()));
    }

    @ParameterizedTest(name = "seed {0}, l2bridge {1}")
    @MethodSource("setups")
    void theIncrementalStateEqualsAFromScratchAssemblyAfterRandomChanges(long seed, boolean l2bridge,
                                                                         PolicyConfig config,
                                                                         List<LoadBalancerFeature> features) {
        Cluster cluster = new Cluster(new Random(seed), l2bridge);
        PolicyCalculator calculator = new PolicyCalculator(config, features);
        DesiredState previous = null;
        int compared = 0;
        int incremental = 0;
        for (int step = 0; step < 150; step++) {
            int changes = cluster.random.nextInt(10) == 0 ? 20 : 1 + cluster.random.nextInt(3);
            for (int i = 0; i < changes; i++) {
                cluster.change();
                if (cluster.random.nextInt(4) == 0) {
                    cluster.apply(); // several applies before one calculation
                }
            }
            cluster.apply();
            if (cluster.random.nextInt(10) == 0) {
                cluster.moveLocalEndpoint();
            }
            if (cluster.random.nextInt(30) == 0) {
                cluster.renumberNode();
            }
            DesiredState state = calculator.calculate(cluster.state, cluster.node());
            DesiredState expected = reference(cluster.state, cluster.node(), config, features);
            String context = "seed " + seed + " step " + step;
            assertThat(state.loadBalancers()).as(context).isEqualTo(expected.loadBalancers());
            assertThat(state.remoteEndpoints()).as(context).isEqualTo(expected.remoteEndpoints());
            assertThat(state.warnings()).as(context).isEqualTo(expected.warnings());
            assertThat(new PolicyCalculator(config, features).calculate(cluster.state, cluster.node()))
                    .as(context).isEqualTo(expected);
            assertLookups(state, context);
            if (!state.changes().everything()) {
                assertChanges(previous, state, context);
                incremental++;
            }
            previous = state;
            compared++;
        }
        assertThat(compared).isEqualTo(150);
        assertThat(incremental).as("incremental rounds").isGreaterThan(100);
    }

    @Test
    void oneEndpointChangeNamesItsServicePortKeysAndIps() {
        Cluster cluster = twoServicesBackedOnNodeB(1, "web", "10.96.0.1", "api", "10.96.0.2");
        PolicyCalculator calculator = new PolicyCalculator(PolicyConfig.defaults(), List.of());
        DesiredState first = calculator.calculate(cluster.state, cluster.node());
        assertThat(first.changes().everything()).isTrue();
        assertThat(first.follows(null)).isFalse();

        cluster.putSlice(Slice.slice("a", "web-1", "web").port("http", 8080).ready("10.244.1.5", "node-b")
                .ready("10.244.2.5", "node-c").build());
        cluster.apply();
        DesiredState second = calculator.calculate(cluster.state, cluster.node());

        assertThat(calculator.lastRecomputedCount()).isEqualTo(1);
        assertThat(second.follows(first)).isTrue();
        assertThat(second.changes().servicePorts()).containsExactly(
                new ServicePortName("a", "web", "http", Protocol.TCP));
        LoadBalancerKey web = new LoadBalancerKey(IpFamily.IPV4, "10.96.0.1",
                Protocol.TCP, 80);
        assertThat(second.changes().loadBalancerKeys()).containsExactly(web);
        assertThat(second.changes().remoteEndpointIps()).containsExactly("10.244.2.5");
        assertThat(second.loadBalancer(web).orElseThrow().backends()).containsExactly("10.244.1.5", "10.244.2.5");
        assertThat(second.remoteEndpoint("10.244.2.5").orElseThrow().providerAddress()).isEqualTo("10.0.0.3");
        assertThat(first.loadBalancer(web).orElseThrow().backends()).as("the first state is unchanged")
                .containsExactly("10.244.1.5");
        assertThat(first.remoteEndpoint("10.244.2.5")).isEmpty();

        DesiredState third = calculator.calculate(cluster.state, cluster.node());
        assertThat(third.changes().isEmpty()).isTrue();
        assertThat(third.follows(second)).isTrue();
        assertThat(third.follows(first)).isFalse();
        assertThat(third).isEqualTo(second);
    }

    @Test
    void aNewNodeNetworkSaysEverythingChangedUnlessOnlyItsLocalEndpointsDid() {
        Cluster cluster = new Cluster(new Random(2), false);
        cluster.put(http("web", "10.96.0.1"), backend("web", "10.244.0.7", NODE));
        cluster.putService(http("api", "10.96.0.2"));
        cluster.apply();
        PolicyCalculator calculator = new PolicyCalculator(PolicyConfig.defaults(), List.of());
        DesiredState first = calculator.calculate(cluster.state, cluster.node());
        assertThat(first.loadBalancers()).as("10.244.0.7 has no HNS endpoint yet").isEmpty();

        cluster.moveLocalEndpoint(); // the CNI made the HNS endpoint of 10.244.0.7
        DesiredState second = calculator.calculate(cluster.state, cluster.node());
        assertThat(calculator.lastRecomputedCount()).as("only the port with that endpoint").isEqualTo(1);
        assertThat(second.follows(first)).isTrue();
        assertThat(second.loadBalancers()).singleElement().satisfies(lb -> assertThat(lb.backends())
                .containsExactly("10.244.0.7"));

        cluster.renumberNode();
        DesiredState third = calculator.calculate(cluster.state, cluster.node());
        assertThat(third.changes()).isEqualTo(DesiredState.Changes.EVERYTHING);
        assertThat(third.follows(second)).isFalse();
        assertThat(calculator.lastRecomputedCount()).isEqualTo(2);
    }

    @Test
    void aStateBuiltFromListsLooksUpTheFirstOfAKeyOrIp() {
        DesiredLoadBalancer lb = new DesiredLoadBalancer(new ServicePortName("a", "web", "http",
                Protocol.TCP), LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.1",
                        Protocol.TCP, 80), 8080, List.of("10.244.1.5"), "", 0, 0, 0);
        DesiredRemoteEndpoint ep = new DesiredRemoteEndpoint("10.244.1.5", "10.0.0.2", "02-11-0a-f4-01-05");
        DesiredState state = new DesiredState(List.of(lb), List.of(ep), List.of());
        assertThat(state.loadBalancer(lb.key())).contains(lb);
        assertThat(state.remoteEndpoint("10.244.1.5")).contains(ep);
        assertThat(state.remoteEndpoint("10.244.1.6")).isEmpty();
        assertThat(state.changes().everything()).isTrue();
    }

    private static void assertLookups(DesiredState state, String context) {
        Set<LoadBalancerKey> keys = new HashSet<>();
        for (DesiredLoadBalancer lb : state.loadBalancers()) {
            assertThat(keys.add(lb.key())).as(context + ": one load balancer per key").isTrue();
            assertThat(state.loadBalancer(lb.key())).as(context).contains(lb);
        }
        Set<String> ips = new HashSet<>();
        for (DesiredRemoteEndpoint ep : state.remoteEndpoints()) {
            assertThat(ips.add(ep.ip())).as(context + ": one remote endpoint per IP").isTrue();
            assertThat(state.remoteEndpoint(ep.ip())).as(context).contains(ep);
        }
    }

    /** The changed keys and IPs are exactly those whose lookups differ; their ports are named. */
    private static void assertChanges(DesiredState previous, DesiredState state, String context) {
        assertThat(state.follows(previous)).as(context).isTrue();
        Set<LoadBalancerKey> keys = new HashSet<>();
        previous.loadBalancers().forEach(lb -> keys.add(lb.key()));
        state.loadBalancers().forEach(lb -> keys.add(lb.key()));
        Set<LoadBalancerKey> differing = new HashSet<>();
        Set<ServicePortName> ports = new HashSet<>();
        for (LoadBalancerKey key : keys) {
            DesiredLoadBalancer before = previous.loadBalancer(key).orElse(null);
            DesiredLoadBalancer after = state.loadBalancer(key).orElse(null);
            if (!Objects.equals(before, after)) {
                differing.add(key);
                Stream.of(before, after).filter(Objects::nonNull).forEach(lb -> ports.add(lb.service()));
            }
        }
        assertThat(state.changes().loadBalancerKeys()).as(context).isEqualTo(differing);
        assertThat(state.changes().servicePorts()).as(context).containsAll(ports);
        Set<String> ips = new HashSet<>();
        previous.remoteEndpoints().forEach(ep -> ips.add(ep.ip()));
        state.remoteEndpoints().forEach(ep -> ips.add(ep.ip()));
        Set<String> differingIps = new HashSet<>();
        for (String ip : ips) {
            if (!previous.remoteEndpoint(ip).equals(state.remoteEndpoint(ip))) {
                differingIps.add(ip);
            }
        }
        assertThat(state.changes().remoteEndpointIps()).as(context).isEqualTo(differingIps);
    }

    /**
     * The plain assembly the calculator did before it was incremental: every service port computed, visited in
     * name order, first key and first IP win, a backend needs a winning load balancer that uses it.
     */
    static DesiredState reference(ProxyState state, NodeNetwork node, PolicyConfig config,
                                  List<LoadBalancerFeature> features) {
        ServicePortPolicy policy = new ServicePortPolicy(node, config, features);
        List<ServicePortName> names = new ArrayList<>(state.services().asMap().keySet());
        names.sort(Comparator.comparing(ServicePortName::namespace).thenComparing(ServicePortName::name)
                .thenComparing(ServicePortName::port).thenComparing(ServicePortName::protocol));
        List<ServicePortPolicy.Result> results = new ArrayList<>();
        for (ServicePortName name : names) {
            ServicePortInfo svc = state.services().asMap().get(name);
            results.add(policy.compute(svc, state.endpoints().get(name)));
        }
        LinkedHashSet<PolicyWarning> warnings = new LinkedHashSet<>(state.warnings());
        Map<LoadBalancerKey, DesiredLoadBalancer> byKey = new LinkedHashMap<>();
        for (ServicePortPolicy.Result result : results) {
            warnings.addAll(result.warnings());
            for (DesiredLoadBalancer lb : result.loadBalancers()) {
                DesiredLoadBalancer existing = byKey.get(lb.key());
                if (existing == null) {
                    byKey.put(lb.key(), lb);
                } else if (!DesiredAssembler.sameExceptService(existing, lb)) {
                    warnings.add(new PolicyWarning("Service", lb.service().namespace(), lb.service().name(),
                            "LoadBalancerConflict", lb.kind().displayName() + " " + lb.key()
                            + " is already used by Service " + existing.service() + "; not programmed"));
                }
            }
        }
        Set<String> referenced = new HashSet<>();
        byKey.values().forEach(lb -> referenced.addAll(lb.backends()));
        Map<String, DesiredRemoteEndpoint> clusterIpEndpoints = new LinkedHashMap<>();
        Map<String, DesiredRemoteEndpoint> backends = new LinkedHashMap<>();
        for (ServicePortPolicy.Result result : results) {
            for (DesiredRemoteEndpoint ep : result.remoteEndpoints()) {
                if (referenced.contains(ep.ip())) {
                    backends.putIfAbsent(ep.ip(), ep);
                }
            }
            result.clusterIpEndpoints().forEach(ep -> clusterIpEndpoints.putIfAbsent(ep.ip(), ep));
        }
        Map<String, DesiredRemoteEndpoint> remotes = new LinkedHashMap<>(clusterIpEndpoints);
        backends.forEach(remotes::putIfAbsent);
        return new DesiredState(new ArrayList<>(byKey.values()), new ArrayList<>(remotes.values()),
                new ArrayList<>(warnings));
    }

    /**
     * An overlay (not l2bridge) cluster, random seed {@code seed}, of two {@link #http} Services: {@code one}
     * backed by 10.244.1.5 and {@code two} by 10.244.1.6, both on node-b; the changes applied.
     */
    private static Cluster twoServicesBackedOnNodeB(int seed, String one, String oneVip, String two,
                                                    String twoVip) {
        Cluster cluster = new Cluster(new Random(seed), false);
        cluster.put(http(one, oneVip), backend(one, "10.244.1.5", "node-b"));
        cluster.put(http(two, twoVip), backend(two, "10.244.1.6", "node-b"));
        cluster.apply();
        return cluster;
    }

    /** ClusterIP Service a/{@code name} at {@code vip}, port "http" 80 to 8080. */
    private static ServiceInfo http(String name, String vip) {
        return Svc.svc("a", name).clusterIp(vip).port("http", 80, 8080).build();
    }

    /** The slice a/{@code service}-1 of {@link #http} Service {@code service}: one ready backend {@code ip}. */
    private static EndpointSliceInfo backend(String service, String ip, String node) {
        return Slice.slice("a", service + "-1", service).port("http", 8080).ready(ip, node).build();
    }

    /** A small random cluster fed through the real trackers. */
    private static final class Cluster {
        final Random random;
        final boolean l2bridge;
        final ServiceChangeTracker services = new ServiceChangeTracker();
        final EndpointsChangeTracker endpoints = new EndpointsChangeTracker(NODE, Instant.EPOCH);
        final ProxyState state = new ProxyState();
        final Map<String, ServiceInfo> currentServices = new TreeMap<>();
        final Map<String, EndpointSliceInfo> currentSlices = new TreeMap<>();
        boolean thirdLocal;
        boolean reusedLocal;
        boolean renumbered;
        NodeNetwork node;

        Cluster(Random random, boolean l2bridge) {
            this.random = random;
            this.l2bridge = l2bridge;
            this.node = buildNode();
        }

        NodeNetwork node() {
            return node;
        }

        /**
         * A local HNS endpoint comes or goes: the node's third pod, or sometimes the IP of a remote pod (an IP that
         * moved to this node).
         */
        void moveLocalEndpoint() {
            if (random.nextInt(3) == 0) {
                reusedLocal = !reusedLocal;
            } else {
                thirdLocal = !thirdLocal;
            }
            node = buildNode();
        }

        /** Another node gets a new provider address: a new node network in more than its local endpoints. */
        void renumberNode() {
            renumbered = !renumbered;
            node = buildNode();
        }

        private NodeNetwork buildNode() {
            NodeNetwork.Builder b = NodeNetwork.builder(l2bridge ? NetworkType.L2BRIDGE : NetworkType.OVERLAY, NODE)
                    .nodeIp("10.0.0.1").sourceVip("10.244.0.2").localEndpoint("10.244.0.5", "10.244.0.6")
                    .rootEndpoint("10.244.0.1").zone("zone-a");
            if (l2bridge) {
                b.nodeIp("fd00::1").localEndpoint("fd00:244::5");
                if (renumbered) {
                    b.rootEndpoint("10.244.0.9");
                }
            } else {
                b.hostMac("00-15-5d-00-00-01").remoteSubnet("10.244.1.0/24", "10.0.0.2")
                        .remoteSubnet("10.244.2.0/24", renumbered ? "10.0.0.4" : "10.0.0.3");
            }
            if (thirdLocal) {
                b.localEndpoint("10.244.0.7");
            }
            if (reusedLocal) {
                b.localEndpoint("10.244.1.6");
            }
            return b.build();
        }

        void apply() {
            state.applyChanges(services, endpoints);
        }

        void change() {
            String ns = random.nextBoolean() ? "a" : "b";
            String name = "s" + random.nextInt(8);
            switch (random.nextInt(6)) {
                case 0, 1 -> putService(randomService(ns, name));
                case 2 -> removeService(ns + "/" + name);
                case 3, 4 -> putSlice(randomSlice(ns, name, random.nextInt(2), l2bridge && random.nextInt(3) == 0));
                default -> removeSlice(ns + "/" + name + "-" + random.nextInt(2));
            }
        }

        void putService(ServiceInfo svc) {
            services.update(currentServices.put(svc.key(), svc), svc);
        }

        void removeService(String key) {
            ServiceInfo old = currentServices.remove(key);
            if (old != null) {
                services.update(old, null);
            }
        }

        void put(ServiceInfo svc, EndpointSliceInfo slice) {
            putService(svc);
            putSlice(slice);
        }

        void putSlice(EndpointSliceInfo slice) {
            endpoints.update(currentSlices.put(slice.namespace() + "/" + slice.name(), slice), slice);
        }

        void removeSlice(String key) {
            EndpointSliceInfo old = currentSlices.remove(key);
            if (old != null) {
                endpoints.update(old, null);
            }
        }

        private <T> T pick(List<T> values) {
            return values.get(random.nextInt(values.size()));
        }

        private ServiceInfo randomService(String ns, String name) {
            String type = pick(List.of("ClusterIP", "ClusterIP", "NodePort", "LoadBalancer"));
            Svc b = Svc.svc(ns, name).type(type).clusterIp(pick(CLUSTER_IPS));
            if (l2bridge && random.nextInt(3) == 0) {
                b.clusterIp(pick(CLUSTER_IPS_V6)).ipFamilies("IPv4", "IPv6");
            }
            boolean nodePorts = !type.equals("ClusterIP");
            b.port("http", "TCP", 80, random.nextInt(4) == 0 ? "8081" : "8080",
                    nodePorts ? 30080 + random.nextInt(3) : 0);
            if (random.nextBoolean()) {
                b.port("dns", "UDP", 53, "53", nodePorts ? 30053 : 0);
            }
            if (random.nextInt(4) == 0) {
                b.externalIp(pick(EXTERNAL_IPS));
            }
            if (type.equals("LoadBalancer")) {
                b.ingress(pick(INGRESS_IPS));
                if (random.nextBoolean()) {
                    b.healthCheckNodePort(32000 + random.nextInt(2));
                }
            }
            if (random.nextInt(4) == 0) {
                b.etp("Local");
            }
            if (random.nextInt(5) == 0) {
                b.itp("Local");
            }
            if (random.nextInt(5) == 0) {
                b.clientIpAffinity(random.nextBoolean() ? 10800 : 600);
            }
            return b.build();
        }

        private EndpointSliceInfo randomSlice(String ns, String name, int index, boolean v6) {
            Slice s = Slice.slice(ns, name + "-" + index, name).port("http", random.nextInt(5) == 0 ? 8081 : 8080);
            if (random.nextBoolean()) {
                s.port("dns", "UDP", 53);
            }
            if (v6) {
                s.addressType("IPv6");
            }
            int count = random.nextInt(5);
            Set<String> used = new HashSet<>();
            for (int i = 0; i < count; i++) {
                boolean local = !v6 && random.nextInt(3) == 0;
                String ip = v6 ? pick(IPS_V6) : local ? pick(LOCAL_IPS) : pick(REMOTE_IPS);
                if (!used.add(ip)) {
                    continue;
                }
                String node = local || ip.equals("fd00:244::5") ? NODE : ip.startsWith("10.244.2.") ? "node-c"
                        : "node-b";
                boolean ready = random.nextInt(4) != 0;
                s.endpoint(ip, node, ready, ready || random.nextBoolean(), !ready && random.nextBoolean());
            }
            return s.build();
        }
    }

    @Test
    void theReferenceAssemblyAgreesWithAHandWrittenCase() {
        Cluster cluster = twoServicesBackedOnNodeB(3, "one", "10.96.0.1", "two", "10.96.0.1");
        DesiredState state = new PolicyCalculator(PolicyConfig.defaults(), List.of()).calculate(cluster.state,
                cluster.node());
        assertThat(state).isEqualTo(reference(cluster.state, cluster.node(), PolicyConfig.defaults(), List.of()));
        assertThat(state.loadBalancers()).singleElement().satisfies(lb -> assertThat(lb.service().name())
                .isEqualTo("one"));
        assertThat(state.remoteEndpoints()).extracting(DesiredRemoteEndpoint::ip)
                .containsExactly("10.96.0.1", "10.244.1.5");
        assertThat(state.warnings()).extracting(PolicyWarning::reason).containsExactly("LoadBalancerConflict");
    }
}
