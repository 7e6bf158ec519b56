package io.winproxy.agent.status;

import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Tells which steps of a plan repair something that changed behind winproxy's back, and which of them worked.
 * Before the apply ({@link #before}): a create of a load balancer whose key belongs to an owned load balancer that
 * vanished from HNS (the journal remembers those) re-creates it: {@code hns_restart} when HNS was unavailable since
 * the last sync, else {@code deleted_out_of_band}; a delete, in the agent's first sync, of a load balancer the journal
 * owns and no Service wants any more removes a leftover of an earlier run ({@code leaked}); a modify or replace of an
 * owned load balancer whose content drifted from what winproxy wrote (the observe re-read it on the drift budget and
 * found it changed: it hands it to the planner as read) corrects it ({@code changed_out_of_band}). After the apply
 * ({@link Candidates#after}): those whose step neither failed nor waits. Reads the journal only when it remembers a
 * vanished object or in the first sync; otherwise costs one pass over the plan's steps (and over the observed load
 * balancers when the plan modifies or replaces one).
 */
public final class RepairDetector {
    private RepairDetector() {
    }

    /** The repairs a plan would make, to be confirmed by the apply's result. */
    public static final class Candidates {
        static final Candidates NONE = new Candidates(Map.of());
        /** By step: "op object". */
        private final Map<String, Repair> byStep;

        private Candidates(Map<String, Repair> byStep) {
            this.byStep = byStep;
        }

        /** The repairs whose step ran and succeeded. */
        public List<Repair> after(ApplyResult result) {
            if (byStep.isEmpty()) {
                return List.of();
            }
            Set<String> notDone = new HashSet<>(result.deferred());
            result.failures().forEach(f -> notDone.add(f.op() + " " + f.object()));
            List<Repair> out = new ArrayList<>();
            byStep.forEach((step, repair) -> {
                if (!notDone.contains(step) && result.remaining() == 0) {
                    out.add(repair);
                }
            });
            return out;
        }

        public boolean isEmpty() {
            return byStep.isEmpty();
        }
    }

    /**
     * @param firstSync   the agent's first sync since it started (deletes of owned, unwanted objects are leftovers)
     * @param afterOutage HNS was unavailable since the last successful sync (what vanished, an HNS restart lost)
     */
    public static Candidates before(Plan plan, ObservedState observed, OwnershipJournal journal, boolean firstSync,
                                    boolean afterOutage) {
        Map<String, OwnershipJournal.LoadBalancerEntry> vanished = new HashMap<>();
        Map<String, OwnershipJournal.Vanished> all = journal.vanished();
        if (!all.isEmpty()) {
            all.values().stream().filter(v -> v.lb() != null)
                    .forEach(v -> vanished.put(StatusCalculator.keyId(v.lb().key(), v.lb().ipv6()), v.lb()));
        }
        Set<String> drifted = drifted(plan, observed, journal);
        if (vanished.isEmpty() && drifted.isEmpty() && !firstSync) {
            return Candidates.NONE;
        }
        Map<String, Repair> byStep = new HashMap<>();
        for (PlanStep step : plan.steps()) {
            String changedId = step instanceof PlanStep.ModifyLoadBalancer m ? m.id()
                    : step instanceof PlanStep.ReplaceLoadBalancer r && !r.unowned() ? r.oldId() : null;
            if (changedId != null && drifted.contains(HnsIds.normalize(changedId))) {
                DesiredLoadBalancer lb = ((PlanStep.LoadBalancerStep) step).loadBalancer();
                byStep.put(step.op() + " " + step.object(), new Repair(Repair.LOAD_BALANCER,
                        Repair.CHANGED_OUT_OF_BAND, lb.service().toString(), lb.key().toString(),
                        lb.kind().displayName()));
                continue;
            }
            DesiredLoadBalancer lb = step instanceof PlanStep.CreateLoadBalancer c ? c.loadBalancer()
                    : step instanceof PlanStep.ReplaceLoadBalancer r ? r.loadBalancer() : null;
            if (lb != null && vanished.containsKey(StatusCalculator.keyId(lb.key()))) {
                byStep.put(step.op() + " " + step.object(), new Repair(Repair.LOAD_BALANCER,
                        afterOutage ? Repair.HNS_RESTART : Repair.DELETED_OUT_OF_BAND, lb.service().toString(),
                        lb.key().toString(), lb.kind().displayName()));
            } else if (firstSync && step instanceof PlanStep.DeleteLoadBalancer d) {
                journal.loadBalancer(d.id()).ifPresent(e -> byStep.put(step.op() + " " + step.object(),
                        new Repair(Repair.LOAD_BALANCER, Repair.LEAKED, e.service(), e.key(), "")));
            }
        }
        return byStep.isEmpty() ? Candidates.NONE : new Candidates(byStep);
    }

    /**
     * The IDs of owned load balancers the observe re-read and found changed: handed to the planner as read (with the
     * journal's fingerprint), where an unchanged owned one is described by the journal alone. Looked for only when
     * the plan modifies or replaces something.
     */
    private static Set<String> drifted(Plan plan, ObservedState observed, OwnershipJournal journal) {
        boolean modifies = plan.steps().stream().anyMatch(s -> s instanceof PlanStep.ModifyLoadBalancer
                || s instanceof PlanStep.ReplaceLoadBalancer);
        if (!modifies || observed == null) {
            return Set.of();
        }
        Set<String> out = new HashSet<>();
        // Only what was read from a document can differ from its fingerprint: not a pass over every load balancer.
        for (ObservedLoadBalancer lb : observed.lookup().loadBalancersRead()) {
            if (lb.read() && lb.fingerprint() != null && journal.ownsLoadBalancer(lb.id())) {
                out.add(HnsIds.normalize(lb.id()));
            }
        }
        return out;
    }
}
