package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.IdChoice;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * An overlay node with no {@code --source-vip} and no CNI endpoint for it (flannel's host-local setup without its
 * script): winproxy creates the source-VIP endpoint without an address, HNS assigns the first free one of the subnet,
 * every load balancer SNATs to it from the first sync, and a restart reuses it. Under every ID variant.
 */
class AssignedSourceVipSyncTest {
    @TempDir
    Path stateDir;

    private final ManualScheduler scheduler = new ManualScheduler();

    static Stream<Arguments> variants() {
        return Stream.of(Arguments.of(EnumSet.noneOf(HnsVariant.class)), Arguments.of(EnumSet.of(HnsVariant.IDS_REJECTED)),
                Arguments.of(EnumSet.of(HnsVariant.IDS_IGNORED)), Arguments.of(EnumSet.allOf(HnsVariant.class)));
    }

    private ProxySyncLoop start(HnsEmulator hns) {
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                new NodeNetworkFactory("win-a", "", "", "192.168.1.11", ip -> "00-15-5d-01-01-0b"), AgentMetrics.NOOP,
                Instant.EPOCH);
        HnsDataplane dataplane = new HnsDataplane(hns, "overlay", OwnershipJournal.open(stateDir),
                Duration.ofSeconds(30), () -> scheduler.nowMillis() * 1_000_000L);
        ProxyHealthServer health = new ProxyHealthServer(null, new ProxierHealth(Duration.ofSeconds(60),
                Clock.systemUTC()), false, "win-a", AgentMetrics.NOOP, (k, ns, n, t, r, m) -> { },
                Duration.ofSeconds(1));
        ProxySyncLoop loop = new ProxySyncLoop(engine, dataplane, health, null, AgentMetrics.NOOP,
                (kind, ns, name, type, reason, message) -> { }, Clock.systemUTC(), List.of(IpFamily.IPV4), "win-a",
                ProxySyncLoop.Timing.of(Duration.ofSeconds(1), Duration.ofSeconds(30)), scheduler, r -> { });
        loop.start();
        loop.onNode(null, new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"), List.of("192.168.1.11"), null,
                false, List.of()));
        loop.onService(null, new ServiceInfo("default", "web", "ClusterIP", List.of("10.96.0.80"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(), "None",
                0, null, null, 0, null, null));
        loop.onEndpointSlice(null, new EndpointSliceInfo("default", "web-1", "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), List.of(
                new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.5"), true, null, null, "win-a", null, null,
                        null),
                new EndpointSliceInfo.SliceEndpoint(List.of("10.244.2.6"), true, null, null, "win-b", null, null,
                        null)), null));
        loop.onNodeSynced();
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        return loop;
    }

    private static List<HostComputeEndpoint> sourceVipEndpoints(HnsEmulator hns) {
        String network = hns.getNetworkByName("overlay").orElseThrow().id();
        return hns.listEndpoints(network).stream().filter(e -> !e.isRemote()
                && HnsDataplane.SOURCE_VIP_ENDPOINT_NAME.equals(e.name())).toList();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("variants")
    void hnsAssignsTheSourceVipAtTheFirstSyncAndARestartReusesIt(Set<HnsVariant> variants) {
        HnsEmulator hns = HnsEmulator.builder().build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        hns.setVariants(variants);

        ProxySyncLoop loop = start(hns);
        assertThat(loop.syncOnce()).as("the first sync converges").isTrue();

        // The first free address of 10.244.1.0/24 (.1 is the gateway).
        assertThat(sourceVipEndpoints(hns)).singleElement()
                .satisfies(e -> assertThat(e.ipAddresses()).containsExactly("10.244.1.2"));
        List<HostComputeLoadBalancer> lbs = hns.listLoadBalancers();
        assertThat(lbs).singleElement().satisfies(lb -> assertThat(lb.sourceVip()).isEqualTo("10.244.1.2"));
        loop.stop();

        // A restart (a new process on the same host and state directory) finds it and writes nothing.
        hns.journal().reset();
        ProxySyncLoop restarted = start(hns);
        assertThat(restarted.syncOnce()).isTrue();
        assertThat(hns.journal().writes()).isZero();
        assertThat(sourceVipEndpoints(hns)).hasSize(1);
        restarted.stop();
        // Journaled as owned, with the address HNS gave it.
        assertThat(OwnershipJournal.open(stateDir).localEndpoints().values()).singleElement()
                .satisfies(e -> assertThat(e.ip()).isEqualTo("10.244.1.2"));
        assertThat(OwnershipJournal.open(stateDir).localEndpoints().keySet().iterator().next())
                .isEqualToIgnoringCase(sourceVipEndpoints(hns).get(0).id());
        if (variants.isEmpty()) {
            assertThat(stateDir.resolve(IdChoice.FILE_NAME)).doesNotExist();
        }
    }
}
