package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * Executes plans ({@link Execution} runs one). Holds what outlives an apply: the HNS client, the journal, the host
 * cache it keeps current, the per-object backoff, how IDs are chosen ({@link IdChoice}), whether
 * {@code HcnModifyLoadBalancer} can be trusted, and the stop signal checked between steps.
 *
 * <p>Guarantees: write-ahead (an object is created only after its reservation is durably journaled; when the journal
 * cannot be written, creates wait while deletes and adoptions go on), a failing step never stops the others, HNS
 * errors are classified by HRESULT, local endpoints are never deleted, an unmarked object is deleted on the journal's
 * word only while its document still matches the journal.
 *
 * <p>Not thread-safe: the sync thread only (the stop signal may be raised from any thread).
 */
final class PlanExecutor {
    /** Steps per write-ahead chunk: one journal flush per chunk. */
    static final int CHUNK = 256;
    /**
     * Consecutive steps failing because HNS is unavailable after which an apply stops calling HNS: the rest of the
     * plan is deferred to the next sync instead of failing one step after the other.
     */
    static final int MAX_UNAVAILABLE_IN_A_ROW = 3;

    final HnsClient hns;
    final OwnershipJournal journal;
    final HostCache cache;
    final ObjectBackoff backoff;
    final IdChoice ids;
    final DeletionGuard guard;
    final BackendProbe probe;
    private final BooleanSupplier stopping;
    private boolean modifySupported;
    /** The (immutable) policy list per provider address: one per node, shared by its endpoints' documents. */
    final Map<String, List<HcnPolicy>> policiesByPa = new HashMap<>();

    PlanExecutor(HnsClient hns, OwnershipJournal journal, HostCache cache, ObjectBackoff backoff, IdChoice ids,
                 BackendLimit limit, boolean modifySupported, BooleanSupplier stopping) {
        this.hns = hns;
        this.journal = journal;
        this.cache = cache;
        this.backoff = backoff;
        this.ids = ids;
        this.guard = new DeletionGuard(hns, journal, cache);
        this.probe = new BackendProbe(limit);
        this.modifySupported = modifySupported;
        this.stopping = stopping;
    }

    boolean modifySupported() {
        return modifySupported;
    }

    /** {@code HcnModifyLoadBalancer} failed or misbehaved: plans replace from now on. */
    void modifyUntrusted() {
        modifySupported = false;
    }

    boolean stopping() {
        return stopping.getAsBoolean();
    }

    /**
     * Executes the plan's steps, most urgent first. When {@code deadlineNanos} (of {@code nanoTime}) passes or the
     * stop signal is raised, the steps not started yet are left for the next apply ({@link ApplyResult#remaining});
     * at least one step runs unless stopping.
     */
    ApplyResult apply(Plan plan, String network, ObservedState observed, long deadlineNanos,
                      LongSupplier nanoTime) {
        return new Execution(this, plan, network, observed).run(deadlineNanos, nanoTime);
    }

    static OwnershipJournal.LoadBalancerEntry entry(DesiredLoadBalancer lb, String fingerprint) {
        return new OwnershipJournal.LoadBalancerEntry(lb.service().toString(), lb.key().toString(),
                lb.key().family() == IpFamily.IPV6, fingerprint);
    }

    static OwnershipJournal.RemoteEndpointEntry entry(DesiredRemoteEndpoint ep) {
        return new OwnershipJournal.RemoteEndpointEntry(ep.ip(), ep.providerAddress(), ep.storedMac());
    }
}
