package io.winproxy.policy.testing;

import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import io.winproxy.policy.spi.LoadBalancerFeature;
import io.winproxy.policy.trace.Packet;
import io.winproxy.policy.trace.PacketTracer;
import io.winproxy.policy.trace.TraceResult;
import io.winproxy.policy.tracking.EndpointsChangeTracker;
import io.winproxy.policy.tracking.ProxyChanges;
import io.winproxy.policy.tracking.ProxyState;
import io.winproxy.policy.tracking.ServiceChangeTracker;
import java.time.Instant;
import java.util.List;

/**
 * Drives the whole policy pipeline like the agent's sync loop, against a {@link FakeHost}: trackers -> ProxyState ->
 * PolicyCalculator -> PlanCalculator -> apply. Defaults mirror upstream's fake proxier: node "testhost", node IP
 * 10.0.0.1, source VIP 192.168.1.2, host MAC 00-11-22-33-44-55, remote subnet 192.168.2.0/24 via PA 10.0.0.3.
 */
public final class PolicyHarness {
    public static final String NODE = "testhost";
    public static final String NODE_IP = "10.0.0.1";
    public static final String SOURCE_VIP = "192.168.1.2";
    public static final String HOST_MAC = "00-11-22-33-44-55";

    public final FakeHost host = new FakeHost();
    public final ServiceChangeTracker services = new ServiceChangeTracker();
    public final EndpointsChangeTracker endpoints = new EndpointsChangeTracker(NODE, Instant.EPOCH);
    public final ProxyState state = new ProxyState();
    private final NetworkType type;
    private final PolicyCalculator calculator;
    public boolean modifySupported;
    /** The root (host) endpoint's IP given to the policy, "" for none. */
    public String rootEndpointIp = "";
    /** An IPv6 root endpoint IP, "" for none. */
    public String rootEndpointIpV6 = "";
    /** This node's IPv6 address, "" for a single-stack node. */
    public String nodeIpV6 = "";
    public DesiredState lastDesired;
    public Plan lastPlan;
    public ProxyChanges lastChanges;

    public PolicyHarness(NetworkType type, PolicyConfig config, List<LoadBalancerFeature> features) {
        this.type = type;
        this.calculator = new PolicyCalculator(config, features);
    }

    public static PolicyHarness overlay() {
        return new PolicyHarness(NetworkType.OVERLAY, PolicyConfig.defaults(), List.of());
    }

    public static PolicyHarness l2bridge() {
        return new PolicyHarness(NetworkType.L2BRIDGE, PolicyConfig.defaults(), List.of());
    }

    public PolicyCalculator calculator() {
        return calculator;
    }

    public NodeNetwork node() {
        NodeNetwork.Builder b = NodeNetwork.builder(type, NODE).networkName("TestNetwork").nodeIp(NODE_IP)
                .sourceVip(SOURCE_VIP).hostMac(HOST_MAC).remoteSubnet("192.168.2.0/24", "10.0.0.3");
        host.localEndpointIps().stream().filter(ip -> !ip.equals(rootEndpointIp) && !ip.equals(rootEndpointIpV6))
                .forEach(b::localEndpoint);
        if (!rootEndpointIp.isEmpty()) {
            b.rootEndpoint(rootEndpointIp);
        }
        if (!rootEndpointIpV6.isEmpty()) {
            b.rootEndpoint(rootEndpointIpV6);
        }
        if (!nodeIpV6.isEmpty()) {
            b.nodeIp(nodeIpV6);
        }
        return b.build();
    }

    public PolicyHarness add(ServiceInfo svc) {
        services.update(null, svc);
        return this;
    }

    public PolicyHarness update(ServiceInfo old, ServiceInfo svc) {
        services.update(old, svc);
        return this;
    }

    public PolicyHarness delete(ServiceInfo svc) {
        services.update(svc, null);
        return this;
    }

    public PolicyHarness add(EndpointSliceInfo slice) {
        endpoints.update(null, slice);
        return this;
    }

    public PolicyHarness update(EndpointSliceInfo old, EndpointSliceInfo slice) {
        endpoints.update(old, slice);
        return this;
    }

    public PolicyHarness delete(EndpointSliceInfo slice) {
        endpoints.update(slice, null);
        return this;
    }

    /** One sync: apply changes, compute, plan against the host, apply the plan. Returns the plan. */
    public Plan sync() {
        lastChanges = state.applyChanges(services, endpoints);
        lastDesired = calculator.calculate(state, node());
        lastPlan = PlanCalculator.plan(lastDesired, host.observe(), host.ownership(), modifySupported);
        host.apply(lastPlan);
        return lastPlan;
    }

    public TraceResult trace(String src, String dstIp, int port, Protocol protocol) {
        return PacketTracer.trace(host.observe(), node(), new Packet(src, dstIp, port, protocol), lastDesired);
    }
}
