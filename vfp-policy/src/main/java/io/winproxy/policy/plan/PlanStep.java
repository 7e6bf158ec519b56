package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;

/**
 * One HNS operation of a plan. A plan lists them in execution order: create remote endpoints, then create, modify
 * or replace load balancers, then delete stale load balancers, then delete unreferenced remote endpoints.
 * {@link AdoptLoadBalancer} and {@link AdoptRemoteEndpoint} make no HNS call; they record an existing matching object
 * in the ownership journal.
 */
public sealed interface PlanStep {

    /** The {@code op} name of {@code plan -o json}. */
    String op();

    record CreateRemoteEndpoint(DesiredRemoteEndpoint endpoint) implements PlanStep {
        public String op() {
            return "create-remote-endpoint";
        }
    }

    /** An unowned remote endpoint with the desired IP and provider address becomes owned. */
    record AdoptRemoteEndpoint(String id, DesiredRemoteEndpoint endpoint) implements PlanStep {
        public String op() {
            return "adopt-remote-endpoint";
        }
    }

    /**
     * An existing load balancer that matches the desired one becomes owned (or, when already owned by a journal
     * without fingerprints, gets one); {@code fingerprint} is what the journal records.
     */
    record AdoptLoadBalancer(String id, DesiredLoadBalancer loadBalancer, String fingerprint) implements PlanStep {
        public AdoptLoadBalancer(String id, DesiredLoadBalancer loadBalancer) {
            this(id, loadBalancer, "");
        }

        public String op() {
            return "adopt-load-balancer";
        }
    }

    record CreateLoadBalancer(DesiredLoadBalancer loadBalancer) implements PlanStep {
        public String op() {
            return "create-load-balancer";
        }
    }

    /** In-place update (HNS 15.4+ {@code HcnModifyLoadBalancer}); the ID stays. */
    record ModifyLoadBalancer(String id, DesiredLoadBalancer loadBalancer) implements PlanStep {
        public String op() {
            return "modify-load-balancer";
        }
    }

    /** Delete {@code oldId} then create; {@code unowned} when the old object was not winproxy's (a collision). */
    record ReplaceLoadBalancer(String oldId, DesiredLoadBalancer loadBalancer, boolean unowned) implements PlanStep {
        public String op() {
            return "replace-load-balancer";
        }
    }

    record DeleteLoadBalancer(String id, String reason) implements PlanStep {
        public String op() {
            return "delete-load-balancer";
        }
    }

    record DeleteRemoteEndpoint(String id, String ip) implements PlanStep {
        public String op() {
            return "delete-remote-endpoint";
        }
    }
}
