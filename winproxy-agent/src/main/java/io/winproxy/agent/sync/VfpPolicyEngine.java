package io.winproxy.agent.sync;

import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyChanges;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link PolicyEngine} over vfp-policy: kube-proxy's change trackers (fed from informer threads), one
 * {@link ProxyState} and {@link PolicyCalculator} owned by the sync thread, and the {@link PlanCalculator}.
 */
public final class VfpPolicyEngine implements PolicyEngine {
    private final ServiceChangeTracker serviceChanges = new ServiceChangeTracker();
    private final EndpointsChangeTracker endpointChanges;
    private final ProxyState state = new ProxyState();
    private final PolicyCalculator calculator;
    private final NodeNetworkFactory nodeNetworks;
    private final AgentMetrics metrics;
    private volatile NodeInfo node;
    private NodeNetwork lastNodeNetwork;

    public VfpPolicyEngine(PolicyCalculator calculator, NodeNetworkFactory nodeNetworks, AgentMetrics metrics,
                           Instant startTime) {
        this.calculator = Objects.requireNonNull(calculator);
        this.nodeNetworks = Objects.requireNonNull(nodeNetworks);
        this.metrics = Objects.requireNonNull(metrics);
        this.endpointChanges = new EndpointsChangeTracker(nodeNetworks.nodeName(), startTime);
    }

    @Override
    public boolean onService(ServiceInfo previous, ServiceInfo current) {
        boolean pending = serviceChanges.update(previous, current);
        metrics.serviceChangeReceived();
        metrics.serviceChangesPending(serviceChanges.pendingCount());
        return pending;
    }

    @Override
    public boolean onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
        metrics.endpointChangeReceived();
        return endpointChanges.update(previous, current);
    }

    @Override
    public boolean onNode(NodeInfo current) {
        NodeInfo old = node;
        node = current;
        return !Objects.equals(old, current);
    }

    @Override
    public PolicySnapshot compute(HostView host) {
        ProxyChanges changes = state.applyChanges(serviceChanges, endpointChanges);
        metrics.serviceChangesPending(0);
        metrics.endpointChangesPending(0);
        NodeNetwork network = nodeNetworks.build(host, node);
        lastNodeNetwork = network;
        DesiredState desired = calculator.calculate(state, network);
        List<Instant> triggers = new ArrayList<>();
        changes.lastChangeTriggerTimes().values().forEach(triggers::addAll);
        return new PolicySnapshot(desired, state.services().healthCheckNodePorts(),
                state.endpoints().localReadyEndpoints(), triggers, 0, 0);
    }

    @Override
    public Plan plan(DesiredState desired, ObservedState observed, Ownership ownership, boolean modifySupported) {
        return PlanCalculator.plan(desired, observed, ownership, modifySupported);
    }

    /** The node network of the last {@link #compute} (for trace and diagnostics). */
    public NodeNetwork lastNodeNetwork() {
        return lastNodeNetwork;
    }
}
