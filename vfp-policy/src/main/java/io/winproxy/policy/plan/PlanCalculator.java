package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Computes the minimal ordered {@link Plan} that turns the observed host into the desired one:
 * <ol>
 *   <li>create the remote endpoints whose IP no fitting HNS endpoint holds. A local endpoint always fits; a remote
 *       one fits when the desired provider address (PA) is empty (l2bridge) or equals its PA. A remote endpoint whose
 *       PA differs from the desired one (the node hosting the IP got a new address) is <em>stale</em>: a new remote
 *       endpoint with the same IP and the desired PA is created beside it (beside a stale endpoint only a local or an
 *       owned fitting endpoint counts, so an unowned one with the right PA does not make the choice ambiguous);</li>
 *   <li>per desired load balancer: adopt an identical existing one (same key, internal port, backend IP set, source
 *       VIP, flags, port-mapping flags and distribution, and no reference to a stale endpoint; no HNS write, and no
 *       step at all when already owned), else modify an owned one with the key in place when {@code modifySupported},
 *       else replace it (delete + create; an unowned one that collides on the key is replaced with
 *       {@code unowned=true}), else create;</li>
 *   <li>delete owned load balancers nothing desired claims (stale keys, duplicates of one key, inexpressible ones);
 *       unowned ones are reported in {@link Plan#unownedLoadBalancerIds()} and left alone;</li>
 *   <li>delete owned remote endpoints whose IP is not a desired remote endpoint, or that are stale, unless a load
 *       balancer that stays as it is (adopted, unchanged or unowned) still references them (HNS refuses to delete a
 *       referenced endpoint). Local endpoints and unowned remote endpoints are never deleted; an unowned stale one
 *       stays, but the load balancers referencing it are re-programmed onto the fitting one.</li>
 * </ol>
 * So a PA change plans: create the new endpoint, modify (or replace) every load balancer that referenced the old one,
 * then delete the old one. The dataplane resolves backend IPs to the fitting endpoint, never to one being deleted.
 * When HNS holds several load balancers with one key, the best match is used (identical and owned first) and the
 * others are handled as stale. A converged host gives a plan without steps. Pure and stateless.
 */
public final class PlanCalculator {

    public PlanCalculator() {
    }

    /** Computes the plan; see the class comment for the rules. */
    public static Plan plan(DesiredState desired, ObservedState observed, Ownership owned, boolean modifySupported) {
        List<PlanStep> steps = new ArrayList<>();
        Map<String, String> desiredPaByIp = new HashMap<>();
        desired.remoteEndpoints().forEach(ep -> desiredPaByIp.putIfAbsent(ep.ip(), ep.providerAddress()));
        Set<String> staleEndpointIds = new HashSet<>();
        Set<String> staleIps = new HashSet<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (stale(ep, desiredPaByIp)) {
                staleEndpointIds.add(ep.id());
                staleIps.addAll(ep.ips());
            }
        }
        // Beside a stale endpoint only a local or owned fitting one counts, so backends have an unambiguous choice.
        Set<String> existingIps = new HashSet<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (staleEndpointIds.contains(ep.id())) {
                continue;
            }
            for (String ip : ep.ips()) {
                if (!ep.remote() || owned.ownsRemoteEndpoint(ep.id()) || !staleIps.contains(ip)) {
                    existingIps.add(ip);
                }
            }
        }
        for (DesiredRemoteEndpoint ep : desired.remoteEndpoints()) {
            if (existingIps.add(ep.ip())) {
                steps.add(new PlanStep.CreateRemoteEndpoint(ep));
            }
        }

        Map<LoadBalancerKey, List<ObservedLoadBalancer>> byKey = new LinkedHashMap<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            if (lb.key() != null) {
                byKey.computeIfAbsent(lb.key(), k -> new ArrayList<>()).add(lb);
            }
        }
        Set<String> claimed = new HashSet<>();
        Set<String> keptEndpointIds = new HashSet<>();
        Set<LoadBalancerKey> desiredKeys = new HashSet<>();
        for (DesiredLoadBalancer lb : desired.loadBalancers()) {
            desiredKeys.add(lb.key());
            List<ObservedLoadBalancer> candidates = byKey.getOrDefault(lb.key(), List.of()).stream()
                    .filter(o -> !claimed.contains(o.id())).toList();
            Optional<ObservedLoadBalancer> identical = candidates.stream()
                    .filter(o -> identical(o, lb) && o.endpointIds().stream().noneMatch(staleEndpointIds::contains))
                    .min(Comparator.comparing((ObservedLoadBalancer o) -> !owned.ownsLoadBalancer(o.id())));
            if (identical.isPresent()) {
                claimed.add(identical.get().id());
                keptEndpointIds.addAll(identical.get().endpointIds());
                if (!owned.ownsLoadBalancer(identical.get().id())) {
                    steps.add(new PlanStep.AdoptLoadBalancer(identical.get().id(), lb));
                }
                continue;
            }
            Optional<ObservedLoadBalancer> ownedOne = candidates.stream()
                    .filter(o -> owned.ownsLoadBalancer(o.id())).findFirst();
            if (ownedOne.isPresent()) {
                claimed.add(ownedOne.get().id());
                steps.add(modifySupported ? new PlanStep.ModifyLoadBalancer(ownedOne.get().id(), lb)
                        : new PlanStep.ReplaceLoadBalancer(ownedOne.get().id(), lb, false));
                continue;
            }
            if (!candidates.isEmpty()) {
                claimed.add(candidates.get(0).id());
                steps.add(new PlanStep.ReplaceLoadBalancer(candidates.get(0).id(), lb, true));
                continue;
            }
            steps.add(new PlanStep.CreateLoadBalancer(lb));
        }

        List<String> unowned = new ArrayList<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            if (claimed.contains(lb.id())) {
                continue;
            }
            if (owned.ownsLoadBalancer(lb.id())) {
                steps.add(new PlanStep.DeleteLoadBalancer(lb.id(), staleReason(lb, desiredKeys)));
            } else {
                unowned.add(lb.id());
                keptEndpointIds.addAll(lb.endpointIds());
            }
        }

        Set<String> neededIps = new HashSet<>();
        desired.remoteEndpoints().forEach(ep -> neededIps.add(ep.ip()));
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (!ep.remote() || !owned.ownsRemoteEndpoint(ep.id()) || keptEndpointIds.contains(ep.id())) {
                continue;
            }
            if (staleEndpointIds.contains(ep.id())) {
                steps.add(new PlanStep.DeleteRemoteEndpoint(ep.id(), ep.ips().isEmpty() ? "" : ep.ips().get(0)));
            } else if (ep.ips().stream().noneMatch(neededIps::contains)) {
                steps.add(new PlanStep.DeleteRemoteEndpoint(ep.id(), ep.ips().isEmpty() ? "" : ep.ips().get(0)));
            }
        }
        return new Plan(steps, unowned);
    }

    /** Same key, internal port, backend IP set (all referenced endpoints present), source VIP and flags. */
    public static boolean identical(ObservedLoadBalancer observed, DesiredLoadBalancer desired) {
        return desired.key().equals(observed.key())
                && observed.internalPort() == desired.internalPort()
                && observed.endpointIds().size() == observed.backendIps().size()
                && new HashSet<>(observed.backendIps()).equals(new HashSet<>(desired.backends()))
                && observed.backendIps().size() == desired.backends().size()
                && observed.sourceVip().equals(desired.sourceVip())
                && observed.flags() == desired.flags()
                && observed.portMappingFlags() == desired.portMappingFlags()
                && observed.distributionType() == desired.distributionType();
    }

    /**
     * A remote endpoint is stale when one of its IPs is desired with a non-empty provider address other than its own
     * (the node hosting that IP changed its address). Local and l2bridge endpoints are never stale.
     */
    private static boolean stale(ObservedEndpoint ep, Map<String, String> desiredPaByIp) {
        if (!ep.remote()) {
            return false;
        }
        for (String ip : ep.ips()) {
            String pa = desiredPaByIp.get(ip);
            if (pa != null && !pa.isEmpty() && !pa.equalsIgnoreCase(ep.providerAddress())) {
                return true;
            }
        }
        return false;
    }

    private static String staleReason(ObservedLoadBalancer lb, Set<LoadBalancerKey> desiredKeys) {
        if (lb.key() == null) {
            return "not expressible as a service load balancer";
        }
        if (desiredKeys.contains(lb.key())) {
            return "duplicate of " + lb.key();
        }
        return "no service needs " + lb.key();
    }
}
