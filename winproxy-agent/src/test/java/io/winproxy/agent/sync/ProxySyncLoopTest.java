package io.winproxy.agent.sync;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.FakeClock;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.HResults;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The sync loop on a manual clock, with the real policy and dataplane over the HNS emulator. */
class ProxySyncLoopTest {
    private final ManualScheduler scheduler = new ManualScheduler();
    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<SyncReport> reports = new ArrayList<>();
    private EmulatedHost host;
    private ProxyHealthServer health;
    private ProxySyncLoop loop;

    @BeforeEach
    void setUp() {
        host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        EventRecorder recorder = (kind, ns, name, type, reason, message) ->
                events.add(type + " " + reason + " " + kind + " " + ns + "/" + name);
        health = new ProxyHealthServer(null, new ProxierHealth(Duration.ofSeconds(60), Clock.systemUTC()), false,
                "win-a", AgentMetrics.NOOP, recorder, Duration.ofSeconds(1));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"), AgentMetrics.NOOP,
                Instant.EPOCH);
        loop = L2BridgeLoop.start(engine, hns, health, AgentMetrics.NOOP, recorder, scheduler, reports::add);
        loop.onNodeSynced();
        hns.journal().reset();
    }

    private static ServiceInfo web(String targetPort) {
        return new ServiceInfo("default", "web", "ClusterIP", List.of("10.96.0.80"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, targetPort, 0)), List.of(), List.of(),
                "None", 0, null, null, 0, null, null);
    }

    private static EndpointSliceInfo slice() {
        return new EndpointSliceInfo("default", "web-1", "web", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.5"), true, null, null, "win-a", null,
                        null, null)), null);
    }

    @Test
    void startingEmitsTheNodeStartingEvent() {
        assertThat(events).containsExactly("Normal Starting Node /win-a");
    }

    @Test
    void nothingIsWrittenToHnsBeforeServicesAndEndpointSlicesHaveBothSynced() {
        loop.onService(null, web("8080"));
        loop.onEndpointSlice(null, slice());
        loop.onServicesSynced();
        scheduler.advanceMillis(60_000);
        assertThat(hns.journal().writes()).isZero();
        assertThat(reports).isEmpty();

        loop.onEndpointSlicesSynced();
        scheduler.advanceMillis(1000);
        assertThat(reports).hasSize(1);
        assertThat(hns.listLoadBalancers()).hasSize(1);
    }

    @Test
    void changesAreCoalescedAndAnUnchangedClusterWritesNothingOnPeriodicSyncs() {
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        scheduler.advanceMillis(0);
        loop.onService(null, web("8080"));
        loop.onEndpointSlice(null, slice());
        scheduler.advanceMillis(1000);
        assertThat(reports).hasSize(2);
        assertThat(hns.listLoadBalancers()).hasSize(1);

        hns.journal().reset();
        scheduler.advanceMillis(90_000);
        assertThat(reports).hasSize(5);
        assertThat(hns.journal().writes()).isZero();
    }

    @Test
    void aMissingNetworkFailsTheSyncWithoutReportingHealthAndIsRetried() {
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        Instant before = health.health().health().lastUpdated();
        host.syncLocalEndpoints(Set.of());
        host.deleteNetwork();
        scheduler.advanceMillis(0);
        assertThat(reports).isEmpty();
        assertThat(health.health().health().lastUpdated()).isEqualTo(before);
    }

    @Test
    void aPolicyWarningBecomesOneWarningEventNotOnePerSync() {
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        loop.onService(null, new ServiceInfo("default", "bad", "ClusterIP", List.of("10.96.0.81"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("sctp", "SCTP", 80, "80", 0)), List.of(), List.of(), "None",
                0, null, null, 0, null, null));
        scheduler.advanceMillis(0);
        scheduler.advanceMillis(90_000);
        assertThat(events.stream().filter(e -> e.startsWith("Warning")).toList()).hasSize(1)
                .allSatisfy(e -> assertThat(e).contains("Service default/bad"));
    }

    @Test
    void aLoadBalancerThatKeepsFailingGivesOneWarningEventOnItsServiceAndIsRetriedUntilItWorks() {
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 3, HResults.HCN_E_PORT_ALREADY_EXISTS);
        listedWeb(loop);
        scheduler.advanceMillis(120_000);

        assertThat(hns.listLoadBalancers()).hasSize(1);
        assertThat(events).filteredOn(e -> e.contains("FailedToProgram"))
                .containsExactly("Warning FailedToProgram Service default/web");
    }

    @Test
    void nothingIsWrittenToHnsBeforeThisNodesInitialListHasSynced() {
        ProxySyncLoop fresh = newLoop(NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"));
        listedWeb(fresh);
        scheduler.advanceMillis(60_000);
        assertThat(hns.journal().writes()).isZero();

        fresh.onNodeSynced();
        scheduler.advanceMillis(1000);
        assertThat(hns.listLoadBalancers()).hasSize(1);
    }

    @Test
    void withoutAnyKnownNodeIpTheSyncWritesAndDeletesNothing() {
        listedWeb(loop);
        scheduler.advanceMillis(1000);
        assertThat(hns.listLoadBalancers()).hasSize(1);

        // A restart where the Node object has no InternalIP and no --bind-address is given (l2bridge: no PA).
        ProxySyncLoop restarted = newLoop(NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", ""));
        listedWeb(restarted);
        restarted.onNodeSynced();
        hns.journal().reset();
        scheduler.advanceMillis(60_000);

        assertThat(hns.journal().writes()).isZero();
        assertThat(hns.listLoadBalancers()).hasSize(1);
    }

    @Test
    void onOverlayWithoutTheHostMacNothingIsProgrammedUntilTheInterfaceIsFound() {
        io.winproxy.hns.emulator.HnsEmulator overlayHns = io.winproxy.hns.emulator.HnsEmulator.builder().build();
        EmulatedHost overlay = new EmulatedHost(overlayHns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        overlay.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        overlay.syncLocalEndpoints(Set.of("10.244.1.5"));
        java.util.concurrent.atomic.AtomicReference<String> mac = new java.util.concurrent.atomic.AtomicReference<>("");
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                new NodeNetworkFactory("win-a", "10.244.1.2", "", "192.168.1.11", ip -> mac.get()), AgentMetrics.NOOP,
                Instant.EPOCH);
        HnsDataplane dataplane = new HnsDataplane(overlayHns, "overlay", OwnershipJournal.inMemory(),
                Duration.ofSeconds(30), () -> scheduler.nowMillis() * 1_000_000L);
        ProxySyncLoop overlayLoop = new ProxySyncLoop(engine, dataplane, health, null, AgentMetrics.NOOP,
                (kind, ns, name, type, reason, message) -> { }, Clock.systemUTC(), List.of(IpFamily.IPV4), "win-a",
                ProxySyncLoop.Timing.of(Duration.ofSeconds(1), Duration.ofSeconds(30)), scheduler, r -> { });
        overlayLoop.start();
        listedWeb(overlayLoop);
        overlayLoop.onNodeSynced();
        overlayHns.journal().reset();
        scheduler.advanceMillis(60_000);
        assertThat(overlayHns.journal().writes()).as("no host MAC: nothing is programmed").isZero();

        // The MAC is needed in two places: the ClusterIP remote endpoint and the source-VIP endpoint.
        mac.set("00-15-5d-01-01-0b");
        overlayLoop.requestSync();
        scheduler.advanceMillis(60_000);
        assertThat(overlayHns.listLoadBalancers()).hasSize(1);
        overlayLoop.stop();
    }

    @Test
    void aPartialSyncCountsAsProgressButLeavesTheRestQueuedForHealth() {
        FakeClock clock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"), java.time.ZoneOffset.UTC);
        ProxierHealth proxier = new ProxierHealth(Duration.ofSeconds(60), clock);
        ProxyHealthServer partialHealth = new ProxyHealthServer(null, proxier, false, "win-a", AgentMetrics.NOOP,
                (kind, ns, name, type, reason, message) -> { }, Duration.ofSeconds(1));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"), AgentMetrics.NOOP,
                Instant.EPOCH);
        HnsDataplane dataplane = new HnsDataplane(hns, "cbr0", OwnershipJournal.inMemory(), Duration.ofSeconds(30),
                System::nanoTime);
        List<SyncReport> partial = new ArrayList<>();
        // An apply bound of 1 ns: every apply runs one step and leaves the rest for the next chunk.
        ProxySyncLoop chunked = new ProxySyncLoop(engine, dataplane, partialHealth, null, AgentMetrics.NOOP,
                (kind, ns, name, type, reason, message) -> { }, clock, List.of(IpFamily.IPV4), "win-a",
                new ProxySyncLoop.Timing(Duration.ofSeconds(1), Duration.ofSeconds(1), Duration.ofSeconds(30),
                        Duration.ofNanos(1)), new ManualScheduler(), partial::add);
        chunked.start();
        chunked.onNodeSynced();
        chunked.onService(null, web("8080"));
        chunked.onEndpointSlice(null, slice());
        // A second Service port: two load balancers, so one step is not the whole plan.
        chunked.onService(null, new ServiceInfo("default", "api", "ClusterIP", List.of("10.96.0.81"), List.of("IPv4"),
                List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080", 0)), List.of(), List.of(),
                "None", 0, null, null, 0, null, null));
        chunked.onEndpointSlice(null, new EndpointSliceInfo("default", "api-1", "api", "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)),
                List.of(new EndpointSliceInfo.SliceEndpoint(List.of("10.244.1.5"), true, null, null, "win-a", null,
                        null, null)), null));
        chunked.onServicesSynced();
        chunked.onEndpointSlicesSynced();
        assertThat(chunked.syncOnce()).isFalse();
        assertThat(partial).singleElement().satisfies(r -> assertThat(r.result().partial()).isTrue());
        assertThat(proxier.isHealthy()).isTrue();

        // No further chunk runs (the scheduler is stopped): the rest is still queued, so health times out.
        clock.step(Duration.ofSeconds(61));
        assertThat(proxier.isHealthy()).as("the rest of a partial sync is still pending").isFalse();
    }

    /** Delivers the initial list: Service default/web (target port 8080) and its slice. */
    private void listedWeb(ProxySyncLoop target) {
        target.onService(null, web("8080"));
        target.onEndpointSlice(null, slice());
        target.onServicesSynced();
        target.onEndpointSlicesSynced();
    }

    private ProxySyncLoop newLoop(NodeNetworkFactory nodeNetworks) {
        EventRecorder recorder = (kind, ns, name, type, reason, message) -> { };
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                nodeNetworks, AgentMetrics.NOOP, Instant.EPOCH);
        ProxySyncLoop fresh = L2BridgeLoop.start(engine, hns, health, AgentMetrics.NOOP, recorder, scheduler, r -> { });
        return fresh;
    }
}
