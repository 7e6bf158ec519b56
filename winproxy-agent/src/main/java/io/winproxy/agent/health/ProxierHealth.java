package io.winproxy.agent.health;

import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;

/**
 * The proxier health state of kube-proxy's {@code ProxyHealthServer}, without the HTTP part: per IP family the time
 * of the last successful sync and the oldest queued, not yet applied change, plus this node's eligibility.
 *
 * <p>Semantics (kube-proxy-common.md §1.2, §1.3): {@link #queued} records the first queue time and never moves it
 * forward; {@link #updated} clears it and stamps the update. A family is unhealthy when its oldest queued change is
 * {@code healthTimeout} old or older; a family that never updated is ignored, so the proxier is healthy before the
 * first sync. The node is eligible when the last known Node object has no deletion timestamp and no
 * {@code ToBeDeletedByClusterAutoscaler} taint; no Node object known (not yet seen, or deleted) means ineligible,
 * as in upstream's NodeManager generation.
 *
 * <p>Thread-safe: written by the sync thread and the informer thread, read by HTTP threads.
 */
public final class ProxierHealth {

    /** The taint the cluster autoscaler puts on a node it is about to remove. */
    public static final String TO_BE_DELETED_TAINT = "ToBeDeletedByClusterAutoscaler";

    private final Duration healthTimeout;
    private final Clock clock;
    private final Map<IpFamily, Instant> lastUpdated = new EnumMap<>(IpFamily.class);
    private final Map<IpFamily, Instant> oldestPendingQueued = new EnumMap<>(IpFamily.class);
    private NodeInfo node;

    /**
     * @param healthTimeout how long a queued change may stay unapplied; upstream uses 2 x syncPeriod
     * @param clock         the time source; its zone is the one the JSON bodies are rendered in
     */
    public ProxierHealth(Duration healthTimeout, Clock clock) {
        if (healthTimeout == null || healthTimeout.isNegative() || healthTimeout.isZero()) {
            throw new IllegalArgumentException("healthTimeout must be positive, got " + healthTimeout);
        }
        this.healthTimeout = healthTimeout;
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /** The health timeout for a sync period: {@code 2 x syncPeriod}, as kube-proxy's server.go. */
    public static Duration timeoutForSyncPeriod(Duration syncPeriod) {
        return syncPeriod.multipliedBy(2);
    }

    public Duration healthTimeout() {
        return healthTimeout;
    }

    public Clock clock() {
        return clock;
    }

    /** A change for {@code family} was queued (upstream {@code QueuedUpdate}). */
    public synchronized void queued(IpFamily family) {
        oldestPendingQueued.putIfAbsent(Objects.requireNonNull(family, "family"), clock.instant());
    }

    /** A sync of {@code family} completed and programmed HNS (upstream {@code Updated}). */
    public synchronized void updated(IpFamily family) {
        Objects.requireNonNull(family, "family");
        oldestPendingQueued.remove(family);
        lastUpdated.put(family, clock.instant());
    }

    /**
     * The agent stopped running {@code family} (a dual-stack node lost its IPv6 address): its state is dropped, so
     * it neither appears in {@code status} nor can turn the proxier unhealthy. Upstream never drops a family.
     */
    public synchronized void forget(IpFamily family) {
        oldestPendingQueued.remove(Objects.requireNonNull(family, "family"));
        lastUpdated.remove(family);
    }

    /** The current state of this node's Node object; {@code null} when it was deleted. */
    public synchronized void syncNode(NodeInfo node) {
        this.node = node;
    }

    /** Whether /healthz may answer 200 for this node (ignored by /livez and by service health checks). */
    public synchronized boolean nodeEligible() {
        return node != null && !node.beingDeleted() && !node.taintKeys().contains(TO_BE_DELETED_TAINT);
    }

    /** Evaluates the proxier health now (upstream G-C {@code Health()}). */
    public synchronized ProxyHealth health() {
        Instant now = clock.instant();
        Instant latest = ProxyHealth.ZERO_TIME;
        boolean healthy = true;
        Map<IpFamily, ProxyHealth.FamilyHealth> status = new EnumMap<>(IpFamily.class);
        for (Map.Entry<IpFamily, Instant> entry : lastUpdated.entrySet()) {
            Instant updatedAt = entry.getValue();
            if (updatedAt.isAfter(latest)) {
                latest = updatedAt;
            }
            Instant pendingSince = oldestPendingQueued.get(entry.getKey());
            // Upstream stays healthy only while strictly below the timeout.
            boolean familyHealthy = pendingSince == null
                    || Duration.between(pendingSince, now).compareTo(healthTimeout) < 0;
            healthy &= familyHealthy;
            status.put(entry.getKey(), new ProxyHealth.FamilyHealth(updatedAt, familyHealthy));
        }
        return new ProxyHealth(latest, now, healthy, status);
    }

    /** Shorthand for {@code health().healthy()}. */
    public boolean isHealthy() {
        return health().healthy();
    }
}
