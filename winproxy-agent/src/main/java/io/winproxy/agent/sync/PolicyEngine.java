package io.winproxy.agent.sync;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.IncrementalPlanner;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.tracking.ProxyState;

/**
 * What the sync loop needs from the policy core: change trackers fed from informer threads, and, on the sync
 * thread, an atomic apply of the pending changes followed by the desired-state and plan calculations.
 * {@link VfpPolicyEngine} implements it over vfp-policy.
 *
 * <p>Thread-safety: the {@code on*} methods may be called from any thread concurrently with {@link #compute}.
 */
public interface PolicyEngine {

    /** Feeds the service tracker; true when a change is pending afterwards. */
    boolean onService(ServiceInfo previous, ServiceInfo current);

    /** Feeds the endpoint tracker; true when this event changed something. */
    boolean onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current);

    /** This node's latest state (null once deleted); true when it changes what the policy computes. */
    boolean onNode(NodeInfo current);

    /** Applies the pending changes (one atomic swap) and computes what the host should hold. */
    PolicySnapshot compute(HostView host);

    /** Orders the HNS operations that turn {@code observed} into {@code desired}. */
    Plan plan(DesiredState desired, ObservedState observed, Ownership ownership, boolean modifySupported);

    /**
     * As {@link #plan(DesiredState, ObservedState, Ownership, boolean)}, in proportion to what changed since the last
     * plan: in the desired state and on the host ({@code host}); {@code full} plans everything (the periodic resync).
     */
    default Plan plan(DesiredState desired, ObservedState observed, Ownership ownership, boolean modifySupported,
                      IncrementalPlanner.HostChanges host, boolean full) {
        return plan(desired, observed, ownership, modifySupported);
    }

    /** Whether every step of the last plan succeeded (an incremental planner plans in full after a failure). */
    default void planApplied(boolean complete) {
    }

    /**
     * The trackers' state (service ports and endpoints) as the last {@link #compute} applied it; sync thread only.
     * Read by {@code winproxy status}; null from an engine without trackers (status then shows no ports).
     */
    default ProxyState state() {
        return null;
    }

    /** This node's network as the last {@link #compute} saw it (source VIP, host MAC, type); null before one. */
    default NodeNetwork lastNodeNetwork() {
        return null;
    }
}
