package io.winproxy.policy.trace;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.HnsFlags;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.net.IpAddresses;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Explains what HNS/VFP does with one packet arriving at (or leaving a pod of) this node, from the load balancers the
 * host holds. Matching: a load balancer whose frontend VIP, protocol and external port equal the packet's wins; else a
 * VIP-less (NodePort) load balancer with that protocol and port matches when the destination is one of this node's
 * IPs. The backends are those of the matched load balancer (traffic policies are already encoded in them). SNAT: a DSR
 * load balancer keeps the client's address; otherwise a non-empty SourceVIP replaces the source of external traffic
 * (NodePort, external IP, ingress, health check) and of host-originated traffic to a ClusterIP; pod-to-ClusterIP
 * traffic keeps the pod's address. Pure and stateless.
 */
public final class PacketTracer {

    public PacketTracer() {
    }

    /** Traces {@code packet} through the observed host. */
    public static TraceResult trace(ObservedState observed, NodeNetwork node, Packet packet) {
        return trace(observed, node, packet, null);
    }

    /**
     * Traces {@code packet} through what {@code desired} would program (synthetic host from
     * {@link ObservedState#fromDesired}); the result names the desired load balancer.
     */
    public static TraceResult trace(DesiredState desired, NodeNetwork node, Packet packet) {
        return trace(ObservedState.fromDesired(desired, node), node, packet, desired);
    }

    /**
     * Traces {@code packet} through the observed host and, when {@code desired} is given, names the desired load
     * balancer with the matched key (the service and kind it serves).
     */
    public static TraceResult trace(ObservedState observed, NodeNetwork node, Packet packet, DesiredState desired) {
        List<String> lines = new ArrayList<>();
        Optional<String> dst = IpAddresses.canonical(packet.destinationIp());
        Optional<String> src = IpAddresses.canonical(packet.sourceIp());
        String client = src.orElse(packet.sourceIp());
        if (dst.isEmpty()) {
            lines.add("destination '" + packet.destinationIp() + "' is not an IP address");
            return new TraceResult(Verdict.NO_POLICY, null, null, Set.of(), false, client, lines);
        }
        String dstIp = dst.get();
        IpFamily family = IpFamily.of(dstIp);
        String target = (family == IpFamily.IPV6 ? "[" + dstIp + "]" : dstIp) + ":" + packet.destinationPort() + "/"
                + packet.protocol();
        ObservedLoadBalancer match = null;
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            if (lb.key() != null && lb.key().family() == family && lb.key().protocol() == packet.protocol()
                    && lb.key().externalPort() == packet.destinationPort() && lb.key().frontendVip().equals(dstIp)) {
                match = lb;
                lines.add("load balancer " + lb.id() + " matches frontend VIP " + target);
                break;
            }
        }
        if (match == null && node.isNodeIp(dstIp)) {
            for (ObservedLoadBalancer lb : observed.loadBalancers()) {
                if (lb.key() != null && lb.key().family() == family && lb.key().protocol() == packet.protocol()
                        && lb.key().externalPort() == packet.destinationPort() && lb.key().frontendVip().isEmpty()) {
                    match = lb;
                    lines.add("load balancer " + lb.id() + " (no frontend VIP, node port) matches " + target
                            + " on this node's IP");
                    break;
                }
            }
        }
        if (match == null) {
            lines.add("no load balancer matches " + target);
            List<Integer> otherPorts = observed.loadBalancers().stream()
                    .filter(lb -> lb.key() != null && lb.key().frontendVip().equals(dstIp))
                    .map(lb -> lb.key().externalPort()).distinct().sorted().toList();
            if (!otherPorts.isEmpty()) {
                lines.add("VIP " + dstIp + " is programmed only on ports " + otherPorts);
            }
            lines.add("the packet is not load-balanced and leaves unchanged");
            return new TraceResult(Verdict.NO_POLICY, null, null, Set.of(), false, client, lines);
        }
        DesiredLoadBalancer described = null;
        if (desired != null) {
            ObservedLoadBalancer m = match;
            described = desired.loadBalancers().stream().filter(d -> d.key().equals(m.key())).findFirst()
                    .orElse(null);
            if (described != null) {
                lines.add("it serves " + described.kind().displayName() + " of " + described.service());
            }
        }
        Map<String, ObservedEndpoint> endpoints = observed.endpointsById();
        TreeSet<String> backends = new TreeSet<>();
        for (String id : match.endpointIds()) {
            ObservedEndpoint ep = endpoints.get(id);
            if (ep == null) {
                lines.add("backend endpoint " + id + " does not exist");
                continue;
            }
            Optional<String> ip = ep.ip(family);
            if (ip.isEmpty()) {
                continue;
            }
            String hostPort = (family == IpFamily.IPV6 ? "[" + ip.get() + "]" : ip.get()) + ":" + match.internalPort();
            backends.add(hostPort);
            lines.add("backend " + hostPort + (ep.remote() ? " (remote endpoint" + (ep.providerAddress().isEmpty()
                    ? "" : ", provider address " + ep.providerAddress()) + ")" : " (local endpoint)"));
        }
        if (backends.isEmpty()) {
            lines.add("no backend of the load balancer exists: the packet is dropped");
            return new TraceResult(Verdict.DROPPED, match, described, backends, match.dsr(), client, lines);
        }
        if (match.distributionType() == HnsFlags.DISTRIBUTION_SOURCE_IP) {
            lines.add("session affinity: a client always reaches the same backend (SourceIP distribution)");
        }
        String source = client;
        boolean external = match.key().frontendVip().isEmpty()
                || (match.portMappingFlags() & HnsFlags.PM_VIP_EXTERNAL_IP) != 0
                || (described != null && described.kind() != LoadBalancerKind.CLUSTER_IP);
        if (match.dsr()) {
            lines.add("DSR: the client address is preserved and replies go directly from the backend to the client");
        } else if (!match.sourceVip().isEmpty()) {
            boolean fromLocalPod = node.localEndpointIps().contains(client);
            if (external || !fromLocalPod) {
                source = match.sourceVip();
                lines.add("source NAT to " + source + " (the load balancer's SourceVIP); replies return through this"
                        + " node");
            } else {
                lines.add("traffic from a local pod keeps its source address " + client);
            }
        } else {
            lines.add("no SourceVIP: the source address is not translated");
        }
        return new TraceResult(Verdict.FORWARDED, match, described, backends, match.dsr(), source, lines);
    }
}
