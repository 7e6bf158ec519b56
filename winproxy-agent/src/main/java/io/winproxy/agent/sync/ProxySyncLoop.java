package io.winproxy.agent.sync;

import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.HnsNetworkNotFoundException;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.health.ServiceHealthServer;
import io.winproxy.agent.kube.ClusterEventHandler;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.logging.KlogRefs;
import io.winproxy.agent.logging.RepeatedWarnings;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.status.ProgrammingTracker;
import io.winproxy.agent.status.RepairDetector;
import io.winproxy.agent.status.StatusSource;
import io.winproxy.agent.status.SyncView;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.tracking.ProxyState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sync loop: informer callbacks feed the policy's change trackers and poke the {@link BoundedFrequencyRunner};
 * the runner's single thread observes HNS, computes the desired state and the plan, applies it, then reports to the
 * health servers, metrics and events. Nothing is written to HNS before Services and EndpointSlices have both
 * completed their initial list. Every sync is a reconcile (observe re-reads the host), so an HNS restart, a
 * recreated network or an object deleted behind winproxy's back is repaired by the next sync.
 *
 * <p>IP families: health and metrics are reported per family, for the families of the last successful sync
 * ({@link PolicySnapshot#families()}: IPv4, plus IPv6 on a dual-stack node), as upstream's one proxier per family
 * would. A queued change is queued for each of them; a family that stops being run is dropped from health and its
 * gauges are removed.
 *
 * <p>Thread-safety: the {@link ClusterEventHandler} methods are called on informer threads; {@link #syncOnce()}
 * only ever runs on the runner's thread.
 *
 * <p>About 570 lines: the loop is the one place that orders a sync (observe, policy, plan, apply) and reports it to
 * health, metrics, events and logs, and the one thread status reads run on; the work itself is in the policy engine,
 * the dataplane and the programming tracker ({@link ProgrammingTracker}).
 */
public final class ProxySyncLoop implements ClusterEventHandler, StatusSource {
    private static final Logger logger = LoggerFactory.getLogger(ProxySyncLoop.class);

    /**
     * Timing of the runner: at most every {@code minSyncPeriod}, at least every {@code syncPeriod}; an apply stops
     * starting steps after {@code applyBound} and the next sync, right after, continues (a bounded sync).
     */
    public record Timing(Duration minSyncPeriod, Duration retryPeriod, Duration syncPeriod, Duration applyBound) {
        public Timing(Duration minSyncPeriod, Duration retryPeriod, Duration syncPeriod) {
            this(minSyncPeriod, retryPeriod, syncPeriod, applyBoundFor(syncPeriod));
        }

        /**
         * kube-proxy's periods, retrying a failed sync after {@code min(syncPeriod, max(minSyncPeriod, 5 s))}; the
         * apply bound is half the health timeout ({@link #applyBoundFor}).
         */
        public static Timing of(Duration minSyncPeriod, Duration syncPeriod) {
            Duration retry = Duration.ofSeconds(5);
            if (retry.compareTo(minSyncPeriod) < 0) {
                retry = minSyncPeriod;
            }
            if (retry.compareTo(syncPeriod) > 0) {
                retry = syncPeriod;
            }
            return new Timing(minSyncPeriod, retry, syncPeriod, applyBoundFor(syncPeriod));
        }

        /**
         * Half the health timeout ({@link ProxierHealth#timeoutForSyncPeriod}, {@code 2 x syncPeriod}), so
         * {@code syncPeriod}: a change queued while one chunk runs is applied (or the next chunk reports progress)
         * well before {@code /healthz} would call it stale.
         */
        public static Duration applyBoundFor(Duration syncPeriod) {
            return ProxierHealth.timeoutForSyncPeriod(syncPeriod).dividedBy(2);
        }
    }

    private final PolicyEngine policy;
    private final HnsDataplane dataplane;
    private final ProxyHealthServer health;
    private final ServiceHealthServer serviceHealth;
    private final AgentMetrics metrics;
    private final EventRecorder events;
    private final Clock clock;
    /** The IP families reported; the policy decides them on every successful sync (see {@link PolicySnapshot}). */
    private volatile List<IpFamily> families;
    private final String nodeName;
    private final BoundedFrequencyRunner runner;
    private final Consumer<SyncReport> onSync;

    private volatile boolean servicesSynced;
    private volatile boolean endpointSlicesSynced;
    private volatile boolean nodeSynced;
    /** Set by every change request, cleared by the sync that takes it. */
    private final AtomicBoolean changeRequested = new AtomicBoolean();
    /**
     * When the last periodic sync (full plan and drift checks) started ({@code nanoTime}); one is due once
     * {@code syncPeriod} has passed, whether or not changes keep coming (upstream decides by elapsed time too).
     */
    private long lastPeriodicNanos;
    private boolean periodicEver;
    private final Duration syncPeriod;
    private boolean journalBlockedLogged;
    private final Set<PolicyWarning> reportedWarnings = new HashSet<>();
    private final ProgrammingTracker tracker;
    private final Scheduler scheduler;
    /** When the first change not yet taken by a sync was queued (the start of the programming latency). */
    private final AtomicReference<Instant> changeQueuedAt = new AtomicReference<>();
    /** HNS was unavailable since the last successful sync (what vanished meanwhile, an HNS restart lost). */
    private boolean outageSinceLastSync;
    /** The desired state and families of the last sync that reached HNS (what a status read sees); null before one. */
    private DesiredState lastDesired;
    private List<IpFamily> lastFamilies;
    private final Duration retryPeriod;
    private final Duration applyBound;
    /** When HNS started to be unavailable (the first failed sync of an outage), or null. */
    private Instant hnsUnavailableSince;
    private boolean sourceVipMissingLogged;
    private int failedSyncsWhileUnavailable;
    private long sequence;

    /**
     * @param serviceHealth may be null (no per-service health check servers, e.g. in {@code plan})
     * @param families      the IP families reported until the first successful sync; from then on each sync's
     *                      {@link PolicySnapshot#families()}
     * @param onSync        called on the sync thread after every sync that reached HNS
     */
    public ProxySyncLoop(PolicyEngine policy, HnsDataplane dataplane, ProxyHealthServer health,
                         ServiceHealthServer serviceHealth, AgentMetrics metrics, EventRecorder events, Clock clock,
                         List<IpFamily> families, String nodeName, Timing timing, Scheduler scheduler,
                         Consumer<SyncReport> onSync) {
        this.policy = Objects.requireNonNull(policy);
        this.dataplane = Objects.requireNonNull(dataplane);
        this.health = Objects.requireNonNull(health);
        this.serviceHealth = serviceHealth;
        this.metrics = Objects.requireNonNull(metrics);
        this.events = Objects.requireNonNull(events);
        this.clock = Objects.requireNonNull(clock);
        this.families = List.copyOf(families);
        this.nodeName = Objects.requireNonNull(nodeName);
        this.onSync = onSync == null ? r -> { } : onSync;
        this.retryPeriod = timing.retryPeriod();
        this.applyBound = timing.applyBound();
        this.syncPeriod = timing.syncPeriod();
        this.tracker = new ProgrammingTracker(metrics, events);
        this.scheduler = scheduler;
        this.runner = new BoundedFrequencyRunner("sync-runner", this::syncOnce, timing.minSyncPeriod(),
                timing.retryPeriod(), timing.syncPeriod(), scheduler);
    }

    /**
     * Starts the runner and reports the loop start to health (as upstream's {@code SyncLoop} does) and the
     * {@code Starting} event on the Node. Call after the informers' handlers are registered.
     */
    public void start() {
        Instant now = clock.instant();
        for (IpFamily family : families) {
            health.updated(family);
            metrics.queuedTimestamp(family, now);
        }
        events.event("Node", "", nodeName, "Normal", "Starting", "Starting winproxy.");
        runner.start();
    }

    /**
     * Stops scheduling syncs; a sync in progress stops before its next HNS step (what it did not do is done by the
     * next start). HNS state is left as it is.
     */
    public void stop() {
        dataplane.requestStop();
        runner.stop();
    }

    /**
     * True once Services, EndpointSlices and this Node have all completed their initial list. Waiting for the Node
     * matters after a restart: without its InternalIPs the first sync would compute an empty desired state and
     * delete what the previous run programmed.
     */
    public boolean initialized() {
        return servicesSynced && endpointSlicesSynced && nodeSynced;
    }

    @Override
    public void onService(ServiceInfo previous, ServiceInfo current) {
        if (policy.onService(previous, current)) {
            requestSync();
        }
    }

    @Override
    public void onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
        if (policy.onEndpointSlice(previous, current)) {
            requestSync();
        }
    }

    @Override
    public void onNode(NodeInfo previous, NodeInfo current) {
        health.syncNode(current);
        if (policy.onNode(current)) {
            requestSync();
        }
    }

    @Override
    public void onServicesSynced() {
        servicesSynced = true;
        logger.atInfo().setMessage("Services synced").log();
        requestSync();
    }

    @Override
    public void onEndpointSlicesSynced() {
        endpointSlicesSynced = true;
        logger.atInfo().setMessage("EndpointSlices synced").log();
        requestSync();
    }

    @Override
    public void onNodeSynced() {
        nodeSynced = true;
        logger.atInfo().setMessage("Node synced").addKeyValue("node", nodeName).log();
        requestSync();
    }

    /** Asks for a sync (coalesced and rate limited); ignored until the initial lists are in. */
    public void requestSync() {
        if (!initialized()) {
            return;
        }
        Instant now = clock.instant();
        for (IpFamily family : families) {
            health.queued(family);
            metrics.queuedTimestamp(family, now);
        }
        changeQueuedAt.compareAndSet(null, now);
        changeRequested.set(true);
        runner.run();
    }

    /**
     * One reconcile pass; runs on the runner's thread only. Returns false when the runner should retry soon (HNS
     * unreadable, network missing, or some step failed).
     */
    boolean syncOnce() {
        if (!initialized()) {
            return true;
        }
        long start = System.nanoTime();
        try {
            // The periodic resync (no change waiting, or syncPeriod passed since the last one even under churn) plans
            // in full and spends the drift budget; a sync for a change in between stays cheap.
            boolean changed = changeRequested.getAndSet(false);
            Instant queuedAt = changed ? changeQueuedAt.getAndSet(null) : null;
            boolean periodic = !changed || !periodicEver || start - lastPeriodicNanos >= syncPeriod.toNanos();
            if (periodic) {
                periodicEver = true;
                lastPeriodicNanos = start;
            }
            ObservedState observed = dataplane.observe(periodic);
            long observedAt = System.nanoTime();
            hnsAvailable();
            HostView host = new HostView(dataplane.network().orElseThrow(), dataplane.endpoints());
            PolicySnapshot snapshot = policy.compute(host);
            prepareHost(policy.lastNodeNetwork());
            long computedAt = System.nanoTime();
            Plan plan = policy.plan(snapshot.desired(), observed, dataplane.journal().ownership(),
                    dataplane.modifySupported(), dataplane.hostChanges(), periodic);
            long plannedAt = System.nanoTime();
            RepairDetector.Candidates repairs = RepairDetector.before(plan, observed, dataplane.journal(),
                    sequence == 0, outageSinceLastSync);
            ApplyResult result;
            try {
                result = dataplane.apply(plan, applyBound);
            } catch (RuntimeException e) {
                policy.planApplied(false);
                throw e;
            }
            policy.planApplied(result.complete());
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            outageSinceLastSync = false;
            lastDesired = snapshot.desired();
            lastFamilies = snapshot.families();
            report(snapshot, plan, result);
            trackProgramming(snapshot, plan, result, queuedAt, repairs);
            SyncReport syncReport = new SyncReport(++sequence, snapshot, plan, result, took,
                    new SyncReport.Timings(Duration.ofNanos(observedAt - start),
                            Duration.ofNanos(computedAt - observedAt), Duration.ofNanos(plannedAt - computedAt),
                            Duration.ofNanos(System.nanoTime() - plannedAt)));
            if (result.partial()) {
                // A bounded sync: progress counts as an update for health (report above); the rest is still queued,
                // and the next chunk runs right away.
                Instant now = clock.instant();
                for (IpFamily family : families) {
                    health.queued(family);
                    metrics.queuedTimestamp(family, now);
                }
                runner.continueNow();
                logger.atInfo().setMessage("Sync chunk complete").addKeyValue("sync", sequence)
                        .addKeyValue("created", result.created()).addKeyValue("modified", result.modified())
                        .addKeyValue("deleted", result.deleted()).addKeyValue("failed", result.failures().size())
                        .addKeyValue("elapsed", took.toMillis() + "ms").addKeyValue("stepsLeft", result.remaining())
                        .addKeyValue("steps", plan.steps().size())
                        .addKeyValue("applyBound", applyBound.toSeconds() + "s")
                        .log();
            } else if (result.changed() || !result.complete() || sequence == 1) {
                // The first sync is always reported: after a restart its "0 created ... 0 deleted" is the proof of
                // adoption.
                logger.atInfo().setMessage("Sync complete").addKeyValue("sync", sequence)
                        .addKeyValue("created", result.created()).addKeyValue("modified", result.modified())
                        .addKeyValue("deleted", result.deleted()).addKeyValue("adopted", result.adopted())
                        .addKeyValue("failed", result.failures().size())
                        .addKeyValue("deferred", result.deferred().size())
                        .addKeyValue("elapsed", took.toMillis() + "ms").log();
            } else {
                logger.atDebug().setMessage("Sync complete, no change").addKeyValue("sync", sequence)
                        .addKeyValue("elapsed", took.toMillis() + "ms")
                        .addKeyValue("observe", syncReport.timings().observe().toMillis() + "ms")
                        .addKeyValue("policy", syncReport.timings().policy().toMillis() + "ms")
                        .addKeyValue("plan", syncReport.timings().plan().toMillis() + "ms")
                        .addKeyValue("apply", syncReport.timings().apply().toMillis() + "ms").log();
            }
            if (sequence == 1) {
                logger.atInfo().setMessage("HNS IDs").addKeyValue("idChoice", dataplane.idChoice()).log();
            }
            try {
                onSync.accept(syncReport);
            } catch (RuntimeException e) {
                logger.atWarn().setMessage("Sync listener failed").setCause(e).log();
            }
            return result.complete();
        } catch (SourceVipMissingException e) {
            if (!sourceVipMissingLogged) {
                sourceVipMissingLogged = true;
                logger.atError().setMessage(KlogRefs.capitalize(e.getMessage())).log();
            }
            return false;
        } catch (NodeIpUnknownException e) {
            logger.atWarn().setMessage("Nothing is programmed or deleted until the node IP is known")
                    .addKeyValue("err", e.getMessage()).log();
            return false;
        } catch (HnsNetworkNotFoundException e) {
            logger.atWarn().setMessage("Waiting for the HNS network (the CNI creates it)")
                    .addKeyValue("err", e.getMessage()).log();
            return false;
        } catch (HnsException e) {
            hnsFailed(e);
            return false;
        } finally {
            Duration took = Duration.ofNanos(System.nanoTime() - start);
            for (IpFamily family : families) {
                metrics.syncDuration(family, took);
            }
        }
    }

    /**
     * Overlay: the load balancers' SNAT address must be a local endpoint of the host before they are programmed
     * (created with the host MAC when missing, as upstream). Without a source VIP nothing is programmed: a load
     * balancer without SNAT would send replies of remote backends astray.
     *
     * @throws SourceVipMissingException on an overlay network without a source VIP or without the host MAC
     */
    private void prepareHost(NodeNetwork node) {
        if (node == null || node.networkType() != NetworkType.OVERLAY) {
            return;
        }
        if (node.lacksSourceVip()) {
            throw new SourceVipMissingException("Network " + node.networkName() + " is an overlay network and "
                    + "--source-vip is not set (upstream: \"source-vip flag not set\"); no load balancer is "
                    + "programmed without SNAT until it is");
        }
        if (node.lacksHostMac()) {
            throw new SourceVipMissingException("Network " + node.networkName() + " is an overlay network and no "
                    + "local interface holds the node IP " + node.nodeIps().values() + ", so the host MAC is unknown (upstream: "
                    + "\"could not find host mac address\"); nothing is programmed until it is found");
        }
        sourceVipMissingLogged = false;
        dataplane.ensureSourceVipEndpoint(node.sourceVip(), node.hostMac());
    }

    /**
     * A sync stopped by an HNS error. Nothing is forgotten or deleted because of it (the journal, ownership and
     * observed caches stay as they are; an error is never taken as "not found"), and the runner retries. An outage
     * (HNS stopped, restarting or unreachable) is logged once when it starts, then at debug level, and once when it
     * ends.
     */
    private void hnsFailed(HnsException e) {
        if (!e.isServiceUnavailable()) {
            HnsErrors.Diagnosis d = HnsErrors.diagnose(e);
            logger.atWarn().setMessage("HNS call failed; keeping all state").addKeyValue("err", e.getMessage())
                    .addKeyValue("hresult", d.hex()).addKeyValue("cause", d.cause())
                    .addKeyValue("retryIn", retryPeriod.toSeconds() + "s").log();
            return;
        }
        failedSyncsWhileUnavailable++;
        outageSinceLastSync = true;
        if (hnsUnavailableSince == null) {
            hnsUnavailableSince = clock.instant();
            logger.atWarn().setMessage("HNS is unavailable; keeping all state, backing off")
                    .addKeyValue("operation", e.operation()).addKeyValue("err", HResults.describe(e.hresult()))
                    .addKeyValue("hresult", HnsErrors.diagnose(e).hex())
                    .addKeyValue("cause", HnsErrors.diagnose(e).cause())
                    .addKeyValue("retryIn", retryPeriod.toSeconds() + "s").log();
        } else {
            logger.atDebug().setMessage("HNS still unavailable").addKeyValue("err", e.getMessage()).log();
        }
    }

    private void hnsAvailable() {
        if (hnsUnavailableSince != null) {
            logger.atInfo().setMessage("HNS is available again; reconciling")
                    .addKeyValue("unavailableFor",
                            Duration.between(hnsUnavailableSince, clock.instant()).toSeconds() + "s")
                    .addKeyValue("failedSyncs", failedSyncsWhileUnavailable).log();
            hnsUnavailableSince = null;
            failedSyncsWhileUnavailable = 0;
        }
    }

    /** Per-port records, states, failure and repair metrics, and the Service Events ({@link ProgrammingTracker}). */
    private void trackProgramming(PolicySnapshot snapshot, Plan plan, ApplyResult result, Instant queuedAt,
                                  RepairDetector.Candidates repairs) {
        try {
            tracker.afterSync(new ProgrammingTracker.SyncFacts(clock.instant(), queuedAt, state(),
                    snapshot.desired(), snapshot.families(), plan, result, dataplane::backoff,
                    dataplane.journal()::loadBalancer, repairs.after(result)));
        } catch (RuntimeException e) {
            logger.atWarn().setMessage("Recording the programming state failed").setCause(e).log();
        }
    }

    private ProxyState state() {
        ProxyState state = policy.state();
        return state == null ? new ProxyState() : state;
    }

    /** What a status read sees now; sync thread only. */
    SyncView view() {
        return new SyncView(SyncView.AGENT, nodeName, lastDesired != null, state(), lastDesired,
                lastDesired == null ? families : lastFamilies, dataplane.journal(), List.of(), tracker.book(),
                dataplane::backoff, clock.instant());
    }

    /**
     * Runs {@code read} on the sync thread between syncs, so that it sees one consistent state (what {@code winproxy
     * status} asks the running agent).
     */
    @Override
    public <T> Optional<T> onSyncThread(Function<SyncView, T> read, Duration timeout) {
        CompletableFuture<T> answer = new CompletableFuture<>();
        try {
            scheduler.schedule(Duration.ZERO, () -> {
            try {
                answer.complete(read.apply(view()));
            } catch (RuntimeException e) {
                answer.completeExceptionally(e);
            }
            });
        } catch (RuntimeException e) {
            return Optional.empty(); // the sync thread is shut down
        }
        try {
            return Optional.ofNullable(answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        }
    }

    private void report(PolicySnapshot snapshot, Plan plan, ApplyResult result) {
        Instant now = clock.instant();
        List<IpFamily> previous = families;
        families = snapshot.families();
        if (!families.equals(previous)) {
            logger.atInfo().setMessage("Reporting IP families").addKeyValue("ipFamilies", families)
                    .addKeyValue("previous", previous).log();
            for (IpFamily family : previous) {
                if (!families.contains(family)) {
                    health.forget(family);
                    metrics.familyRemoved(family);
                }
            }
            // A family that starts now gets the last-queued stamp upstream's per-family SyncLoop sets at its start.
            for (IpFamily family : families) {
                if (!previous.contains(family)) {
                    metrics.queuedTimestamp(family, now);
                }
            }
        }
        metrics.journalWriteErrors(dataplane.journal().writeErrors());
        if (result.journalBlocked()) {
            // Creates wait until the journal can be written: the proxier is stalled, and /healthz says so once the
            // queued changes are older than the healthz timeout, as for any sync that cannot make progress.
            if (!journalBlockedLogged) {
                journalBlockedLogged = true;
                logger.atError().setMessage("No HNS object can be created while the ownership journal cannot be"
                        + " written; health reports the proxier as stalled").addKeyValue("sync", sequence + 1).log();
            }
        } else {
            journalBlockedLogged = false;
        }
        for (IpFamily family : families) {
            if (!result.journalBlocked()) {
                health.updated(family);
            }
            metrics.syncTimestamp(family, now);
            PolicySnapshot.NoLocalEndpoints noLocal = snapshot.noLocalByFamily().get(family);
            metrics.noLocalEndpoints(family, noLocal.internal(), noLocal.external());
            for (Instant trigger : snapshot.triggerTimesByFamily().get(family)) {
                metrics.observeNetworkProgrammingLatency(family, Duration.between(trigger, now));
            }
        }
        if (serviceHealth != null) {
            serviceHealth.syncServices(snapshot.healthCheckNodePorts());
            serviceHealth.syncEndpoints(snapshot.localReadyEndpoints());
        }
        metrics.loadBalancers(dataplane.journal().loadBalancerCount(), plan.unownedLoadBalancerIds().size());
        metrics.servicePortsFailed((int) result.failures().stream().map(ApplyResult.StepFailure::object).distinct()
                .count());
        Set<PolicyWarning> current = new HashSet<>(snapshot.desired().warnings());
        // New warnings about one object and reason cost one line (and one event) with their count.
        for (RepeatedWarnings.Group<List<String>, PolicyWarning> group : RepeatedWarnings.group(
                snapshot.desired().warnings().stream().filter(w -> !reportedWarnings.contains(w)).toList(),
                w -> List.of(w.kind(), w.namespace(), w.name(), w.reason()))) {
            PolicyWarning warning = group.first();
            logger.atWarn().setMessage(KlogRefs.capitalize(warning.message()))
                    .addKeyValue(KlogRefs.key(warning.kind()), KlogRefs.ref(warning.namespace(), warning.name()))
                    .addKeyValue("reason", warning.reason()).addKeyValue("count", group.count()).log();
            events.event(warning.kind(), warning.namespace(), warning.name(), "Warning", warning.reason(),
                    group.count() == 1 ? warning.message()
                    : warning.message() + " (and " + (group.count() - 1) + " more like it)");
        }
        reportedWarnings.clear();
        reportedWarnings.addAll(current);
        if (!plan.unownedLoadBalancerIds().isEmpty()) {
            logger.atDebug().setMessage("Unowned load balancers left in place")
                    .addKeyValue("count", plan.unownedLoadBalancerIds().size()).log();
        }
    }
}
