package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;

/**
 * One HNS operation of a plan. A plan lists them in execution order: create remote endpoints, then create, modify
 * or replace load balancers, then delete stale load balancers, then delete unreferenced remote endpoints.
 * {@link AdoptLoadBalancer} and {@link AdoptRemoteEndpoint} make no HNS call; they record an existing matching object
 * in the ownership journal.
 *
 * <p>Code that acts on every kind of step implements {@link Visitor}: the compiler then checks that every kind is
 * handled (pattern matching for {@code switch}, which would do the same, is a preview feature in Java 17).
 */
public sealed interface PlanStep {

    /**
     * The {@code op} name of {@code plan -o json}: the kind's record name in kebab case ("create-load-balancer" for
     * {@link CreateLoadBalancer}). {@code plan -o json} readers depend on these names, so renaming a record changes
     * the output format.
     */
    default String op() {
        return OpNames.of(getClass());
    }

    /**
     * The object the step acts on, for logs, failures and backoff: the load balancer key ("10.96.0.10:53/UDP"), the
     * remote endpoint IP, or the ID of what is deleted.
     */
    String object();

    /** The service port ("ns/name:port") a load-balancer step serves, or "" for endpoint and delete steps. */
    default String service() {
        return "";
    }

    /** Whether the step calls HNS (adoptions only record). */
    default boolean writes() {
        return true;
    }

    <R> R accept(Visitor<R> visitor);

    /** One method per kind of step. */
    interface Visitor<R> {
        R createRemoteEndpoint(CreateRemoteEndpoint step);

        R adoptRemoteEndpoint(AdoptRemoteEndpoint step);

        R adoptLoadBalancer(AdoptLoadBalancer step);

        R createLoadBalancer(CreateLoadBalancer step);

        R modifyLoadBalancer(ModifyLoadBalancer step);

        R replaceLoadBalancer(ReplaceLoadBalancer step);

        R deleteLoadBalancer(DeleteLoadBalancer step);

        R deleteRemoteEndpoint(DeleteRemoteEndpoint step);
    }

    /** A step that programs a load balancer from a desired one. */
    sealed interface LoadBalancerStep extends PlanStep {
        DesiredLoadBalancer loadBalancer();

        @Override
        default String object() {
            return loadBalancer().key().toString();
        }

        @Override
        default String service() {
            return loadBalancer().service().toString();
        }
    }

    /** A step that creates or adopts a remote endpoint; it acts on the endpoint's IP. */
    sealed interface RemoteEndpointStep extends PlanStep {
        DesiredRemoteEndpoint endpoint();

        @Override
        default String object() {
            return endpoint().ip();
        }
    }

    /** A step that deletes the HNS object {@code id}. */
    sealed interface DeleteStep extends PlanStep {
        String id();

        @Override
        default String object() {
            return id();
        }
    }

    /** A step that records an existing object as owned and makes no HNS call. */
    sealed interface Adoption extends PlanStep {
        @Override
        default boolean writes() {
            return false;
        }
    }

    record CreateRemoteEndpoint(DesiredRemoteEndpoint endpoint) implements RemoteEndpointStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.createRemoteEndpoint(this);
        }
    }

    /** An unowned remote endpoint with the desired IP and provider address becomes owned. */
    record AdoptRemoteEndpoint(String id, DesiredRemoteEndpoint endpoint) implements RemoteEndpointStep, Adoption {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.adoptRemoteEndpoint(this);
        }
    }

    /**
     * An existing load balancer that matches the desired one becomes owned (or, when already owned by a journal
     * without fingerprints, gets one); {@code fingerprint} is what the journal records.
     */
    record AdoptLoadBalancer(String id, DesiredLoadBalancer loadBalancer, String fingerprint)
            implements LoadBalancerStep, Adoption {
        public AdoptLoadBalancer(String id, DesiredLoadBalancer loadBalancer) {
            this(id, loadBalancer, "");
        }

        public <R> R accept(Visitor<R> visitor) {
            return visitor.adoptLoadBalancer(this);
        }
    }

    record CreateLoadBalancer(DesiredLoadBalancer loadBalancer) implements LoadBalancerStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.createLoadBalancer(this);
        }
    }

    /** In-place update (HNS 15.4+ {@code HcnModifyLoadBalancer}); the ID stays. */
    record ModifyLoadBalancer(String id, DesiredLoadBalancer loadBalancer) implements LoadBalancerStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.modifyLoadBalancer(this);
        }
    }

    /** Delete {@code oldId} then create; {@code unowned} when the old object was not winproxy's (a collision). */
    record ReplaceLoadBalancer(String oldId, DesiredLoadBalancer loadBalancer, boolean unowned)
            implements LoadBalancerStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.replaceLoadBalancer(this);
        }
    }

    record DeleteLoadBalancer(String id, String reason) implements DeleteStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.deleteLoadBalancer(this);
        }
    }

    record DeleteRemoteEndpoint(String id, String ip) implements DeleteStep {
        public <R> R accept(Visitor<R> visitor) {
            return visitor.deleteRemoteEndpoint(this);
        }
    }
}
