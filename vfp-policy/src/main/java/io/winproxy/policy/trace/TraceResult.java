package io.winproxy.policy.trace;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import java.util.List;
import java.util.Set;

/**
 * The outcome of a packet trace.
 *
 * @param verdict             forwarded, dropped or no-policy
 * @param loadBalancer        the matched HNS load balancer, null for no-policy
 * @param desiredLoadBalancer the desired load balancer with the same key (service, kind), null when unknown
 * @param backends            the "ip:port" ("[ip]:port" for IPv6) the packet may reach, sorted
 * @param dsr                 the return path goes directly from the backend to the client
 * @param sourceAddress       the packet's source after SNAT (the client's IP when not translated)
 * @param explanation         human-readable lines, in order
 */
public record TraceResult(Verdict verdict, ObservedLoadBalancer loadBalancer, DesiredLoadBalancer desiredLoadBalancer,
                          Set<String> backends, boolean dsr, String sourceAddress, List<String> explanation) {
    public TraceResult {
        backends = Set.copyOf(backends);
        explanation = List.copyOf(explanation);
    }

    /** The backends in sorted order (for output). */
    public List<String> sortedBackends() {
        return backends.stream().sorted().toList();
    }
}
