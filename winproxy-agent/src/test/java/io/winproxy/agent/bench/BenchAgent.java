package io.winproxy.agent.bench;

import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.sync.ManualScheduler;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.agent.sync.ProxySyncLoop;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.agent.sync.VfpPolicyEngine;
import io.winproxy.hns.HnsClient;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.HnsIds;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The agent's sync path, without an API server: the real {@link VfpPolicyEngine} (change trackers, policy,
 * plan), {@link HnsDataplane} with its ownership journal in {@code stateDir}, and {@link ProxySyncLoop} on a
 * {@link ManualScheduler} of its own (a restarted agent starts a new clock), fed the way the informers feed it.
 * Built as {@code ProxyAgent} builds it, minus the servers and the metrics; this class is the only place the
 * benchmark constructs them.
 */
final class BenchAgent {
    private static final EventRecorder NO_EVENTS = (kind, namespace, name, type, reason, message) -> { };

    private final ManualScheduler scheduler;
    private final Duration syncPeriod;
    private final ProxySyncLoop loop;
    private SyncReport last;
    private long syncs;

    /**
     * @param driftReads documents the periodic resync may re-read for content drift (the dataplane's per-sync cap;
     *                   the period is the default 10 minutes)
     */
    BenchAgent(HnsClient hns, Path stateDir, Duration minSyncPeriod, Duration syncPeriod, int driftReads) {
        this.scheduler = new ManualScheduler();
        this.syncPeriod = syncPeriod;
        String node = ScaleCluster.THIS_NODE;
        HnsDataplane dataplane = new HnsDataplane(hns, ScaleCluster.NETWORK, OwnershipJournal.open(stateDir), syncPeriod,
                scheduler::nanoTime, new DriftBudget(DriftBudget.DEFAULT.period(), driftReads),
                () -> HnsIds.newId(ThreadLocalRandom.current()));
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(PolicyConfig.defaults(), List.of()),
                new NodeNetworkFactory(node, ScaleCluster.SOURCE_VIP, "", "", HostMacLookup.emulated()::macOf), AgentMetrics.NOOP,
                Instant.EPOCH);
        ProxyHealthServer health = ProxyHealthServer.create("", syncPeriod, false, node, AgentMetrics.NOOP,
                NO_EVENTS);
        loop = new ProxySyncLoop(engine, dataplane, health, null, AgentMetrics.NOOP, NO_EVENTS, Clock.systemUTC(),
                List.of(IpFamily.IPV4), node, ProxySyncLoop.Timing.of(minSyncPeriod, syncPeriod), scheduler,
                report -> {
                    last = report;
                    syncs++;
                });
        loop.start();
    }

    /** This node's informer: its Node object and the end of its initial list. */
    void nodeListed(NodeInfo node) {
        loop.onNode(null, node);
        loop.onNodeSynced();
    }

    void serviceAdded(ServiceInfo service) {
        loop.onService(null, service);
    }

    void servicesListed() {
        loop.onServicesSynced();
    }

    void sliceAdded(EndpointSliceInfo slice) {
        loop.onEndpointSlice(null, slice);
    }

    void slicesListed() {
        loop.onEndpointSlicesSynced();
    }

    void sliceUpdated(EndpointSliceInfo previous, EndpointSliceInfo current) {
        loop.onEndpointSlice(previous, current);
    }

    /**
     * Lets the runner run until the next sync reaches HNS and returns its report: the sync a change or the end of
     * the initial lists asked for, or else the periodic resync one {@code syncPeriod} after the previous sync.
     *
     * @throws IllegalStateException when no sync completes within a sync period (e.g. HNS failed)
     */
    SyncReport nextSync() {
        long before = syncs;
        if (!scheduler.runUntil(() -> syncs > before, syncPeriod.plusSeconds(1))) {
            throw new IllegalStateException("no sync reached HNS within " + syncPeriod.plusSeconds(1));
        }
        return last;
    }

    /** The report of the last sync that reached HNS, or null. */
    SyncReport lastSync() {
        return last;
    }

    void stop() {
        loop.stop();
    }
}
