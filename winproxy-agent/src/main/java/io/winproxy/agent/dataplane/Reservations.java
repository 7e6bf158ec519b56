package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.PlanStep;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * The write-ahead records of the creates of one apply: before a chunk of steps runs, each object it will create is
 * recorded in the journal under an ID (reserved), and the journal is flushed; the create then sends that ID (or, when
 * HNS chooses IDs, replaces it by HNS's). A reservation not used goes back to the journal's vanished objects, so that
 * a later create of the same object reuses the ID; a reservation the journal could not make durable is forgotten.
 *
 * <p>Used once, by the sync thread.
 */
final class Reservations {
    private final OwnershipJournal journal;
    private final IdChoice ids;
    private final HnsClient hns;
    private final Map<PlanStep, String> reserved = new IdentityHashMap<>();

    Reservations(OwnershipJournal journal, IdChoice ids, HnsClient hns) {
        this.journal = journal;
        this.ids = ids;
        this.hns = hns;
    }

    /**
     * Records the object {@code step} will create, if any: a remote endpoint, or a load balancer created, replaced,
     * or (when {@code modifyReplaces}) modified by replacing.
     */
    void reserve(PlanStep step, boolean modifyReplaces) {
        if (step instanceof PlanStep.CreateRemoteEndpoint s) {
            // The ID of an owned endpoint with this IP that vanished (an HNS restart), so that HNS restoring it
            // cannot duplicate it; else a new one.
            String id = journal.reuseVanishedRemoteEndpointId(s.endpoint().ip()).orElseGet(ids::reserve);
            reserved.put(step, id);
            journal.recordRemoteEndpoint(id, PlanExecutor.entry(s.endpoint()));
        } else if (step instanceof PlanStep.CreateLoadBalancer || step instanceof PlanStep.ReplaceLoadBalancer
                || (step instanceof PlanStep.ModifyLoadBalancer && modifyReplaces)) {
            reserved.put(step, loadBalancer(((PlanStep.LoadBalancerStep) step).loadBalancer()));
        }
    }

    /**
     * The ID for a load balancer about to be created, recorded in the journal (to be flushed before the create): the
     * ID of an owned load balancer with the same key that vanished (an HNS restart; HNS may restore it with that ID,
     * and then refuses a duplicate), else a new one.
     */
    String loadBalancer(DesiredLoadBalancer lb) {
        String id = journal.reuseVanishedLoadBalancerId(lb.key().toString(), lb.key().family() == IpFamily.IPV6)
                .orElseGet(ids::reserve);
        journal.recordLoadBalancer(id, PlanExecutor.entry(lb, null));
        return id;
    }

    /** The ID reserved for a step, or null. */
    String of(PlanStep step) {
        return reserved.get(step);
    }

    /** The step's create ran (or its object was adopted): the reservation is used. */
    void used(PlanStep step) {
        reserved.remove(step);
    }

    /** The step did not run: its ID goes back to the vanished ones. */
    void unused(PlanStep step) {
        String id = reserved.remove(step);
        if (id != null) {
            vanished(step, id);
        }
    }

    /** The reservation cannot stand (never durable, or the ID is another object's): forgotten. */
    boolean drop(PlanStep step) {
        String id = reserved.remove(step);
        if (id == null) {
            return false;
        }
        if (step instanceof PlanStep.CreateRemoteEndpoint) {
            journal.forgetRemoteEndpoint(id);
        } else {
            journal.forgetLoadBalancer(id);
        }
        return true;
    }

    /** Forgets a load balancer reserved outside a step ({@link #loadBalancer}) that could not be made durable. */
    void dropLoadBalancer(String id) {
        journal.forgetLoadBalancer(id);
    }

    /**
     * A create that failed: the ID reserved for it goes back to the vanished ones (so that a later create of the same
     * object reuses it). When HNS is unavailable or the call may have been carried out, the reservation is kept
     * instead: the next observe finds the object (owned) or remembers the ID as vanished. Otherwise an object that
     * exists after all (a lost reply) stays owned.
     */
    void failed(PlanStep step, HnsException e) {
        String id = reserved.remove(step);
        if (id == null) {
            return;
        }
        if (e != null && (e.isServiceUnavailable() || HResults.mayHaveCompleted(e.hresult()))) {
            return;
        }
        if (!exists(step, id)) {
            vanished(step, id);
        }
    }

    /** Whether an object exists (after an error a create may have succeeded); true when HNS cannot say. */
    private boolean exists(PlanStep step, String id) {
        try {
            return step instanceof PlanStep.CreateRemoteEndpoint ? hns.getEndpoint(id).isPresent()
                    : hns.getLoadBalancer(id).isPresent();
        } catch (HnsException e) {
            return true;
        }
    }

    private void vanished(PlanStep step, String id) {
        if (step instanceof PlanStep.CreateRemoteEndpoint) {
            journal.vanishedRemoteEndpoint(id);
        } else {
            journal.vanishedLoadBalancer(id);
        }
    }
}
