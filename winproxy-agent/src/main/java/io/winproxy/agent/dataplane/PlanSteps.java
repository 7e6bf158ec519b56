package io.winproxy.agent.dataplane;

import io.winproxy.policy.plan.PlanStep;

/** Helpers over plan steps. */
final class PlanSteps {
    private PlanSteps() {
    }

    /**
     * The object a step acts on, for logs, failures and backoff: the load balancer key ("10.96.0.10:53/UDP"), the
     * remote endpoint IP, or the ID of what is deleted.
     */
    static String objectOf(PlanStep step) {
        if (step instanceof PlanStep.CreateRemoteEndpoint s) {
            return s.endpoint().ip();
        } else if (step instanceof PlanStep.AdoptRemoteEndpoint s) {
            return s.endpoint().ip();
        } else if (step instanceof PlanStep.AdoptLoadBalancer s) {
            return s.loadBalancer().key().toString();
        } else if (step instanceof PlanStep.CreateLoadBalancer s) {
            return s.loadBalancer().key().toString();
        } else if (step instanceof PlanStep.ModifyLoadBalancer s) {
            return s.loadBalancer().key().toString();
        } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
            return s.loadBalancer().key().toString();
        } else if (step instanceof PlanStep.DeleteLoadBalancer s) {
            return s.id();
        } else if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
            return s.id();
        }
        throw new IllegalArgumentException("unknown plan step " + step);
    }

    /** The service port ("ns/name:port") a load-balancer step serves, or "" for endpoint and delete steps. */
    static String serviceOf(PlanStep step) {
        if (step instanceof PlanStep.AdoptLoadBalancer s) {
            return s.loadBalancer().service().toString();
        } else if (step instanceof PlanStep.CreateLoadBalancer s) {
            return s.loadBalancer().service().toString();
        } else if (step instanceof PlanStep.ModifyLoadBalancer s) {
            return s.loadBalancer().service().toString();
        } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
            return s.loadBalancer().service().toString();
        }
        return "";
    }
}
