package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The sync loop most sync tests run: node win-a's l2bridge network cbr0 on an emulated HNS, IPv4, a 1 s minimum and
 * a 30 s full sync period, on a {@link ManualScheduler}'s clock (the dataplane's time too), no service health server.
 */
final class L2BridgeLoop {
    private L2BridgeLoop() {
    }

    /** A started loop; the caller delivers the informers' events. */
    static ProxySyncLoop start(PolicyEngine engine, HnsEmulator hns, ProxyHealthServer health, AgentMetrics metrics,
            EventRecorder recorder, ManualScheduler scheduler, Consumer<SyncReport> onSync) {
        return start(engine, hns, health, metrics, recorder, scheduler, onSync, null);
    }

    /** As above, with the node's backend limit configured as {@code --hns-max-backends-per-load-balancer} would. */
    static ProxySyncLoop start(PolicyEngine engine, HnsEmulator hns, ProxyHealthServer health, AgentMetrics metrics,
            EventRecorder recorder, ManualScheduler scheduler, Consumer<SyncReport> onSync, Integer maxBackends) {
        HnsDataplane dataplane = new HnsDataplane(hns, "cbr0", OwnershipJournal.inMemory(), Duration.ofSeconds(30),
                () -> scheduler.nowMillis() * 1_000_000L);
        dataplane.backendLimit().configure(maxBackends);
        ProxySyncLoop loop = new ProxySyncLoop(engine, dataplane, health, null, metrics, recorder, Clock.systemUTC(),
                List.of(IpFamily.IPV4), "win-a", ProxySyncLoop.Timing.of(Duration.ofSeconds(1),
                Duration.ofSeconds(30)), scheduler, onSync);
        loop.start();
        return loop;
    }

    /**
     * Delivers node win-a (pod CIDR 10.244.1.0/24, node IP 192.168.1.11) and every informer's "synced", then runs what
     * is due: the first sync of a loop whose Services and slices come later.
     */
    static void syncWinA(ProxySyncLoop loop, ManualScheduler scheduler) {
        loop.onNode(null, new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"), List.of("192.168.1.11"), null,
                false, List.of()));
        loop.onNodeSynced();
        loop.onServicesSynced();
        loop.onEndpointSlicesSynced();
        scheduler.advanceMillis(0);
    }

    /**
     * A started loop on win-a's network (cbr0, node IP 192.168.1.11) with the default policy and a health server that
     * reports nowhere; the caller builds the host on {@code hns}.
     */
    static ProxySyncLoop startDefault(HnsEmulator hns, AgentMetrics metrics, EventRecorder recorder,
                                      ManualScheduler scheduler) {
        return startDefault(hns, PolicyConfig.defaults(), metrics, recorder, scheduler);
    }

    /** As {@link #startDefault(HnsEmulator, AgentMetrics, EventRecorder, ManualScheduler)} with {@code policy}. */
    static ProxySyncLoop startDefault(HnsEmulator hns, PolicyConfig policy, AgentMetrics metrics,
                                      EventRecorder recorder, ManualScheduler scheduler) {
        ProxyHealthServer health = new ProxyHealthServer(null, new ProxierHealth(
                Duration.ofSeconds(60), Clock.systemUTC()), false, "win-a", AgentMetrics.NOOP, recorder,
                Duration.ofSeconds(1));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(policy, List.of()),
                NodeNetworkFactory.withoutHostMac("win-a", "", "cbr0", "192.168.1.11"), AgentMetrics.NOOP,
                Instant.EPOCH);
        // the node's backend limit is the dataplane's (the loop hands it to the policy at every sync)
        Integer maxBackends = policy.maxBackendsPerLoadBalancer() < PolicyConfig.DEFAULT_MAX_BACKENDS
                ? policy.maxBackendsPerLoadBalancer() : null;
        return start(engine, hns, health, metrics, recorder, scheduler, r -> { }, maxBackends);
    }
}
