package io.winproxy.agent.sync;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;

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
}
