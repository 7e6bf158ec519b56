package io.winproxy.policy.plan;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Computes the minimal ordered {@link Plan} that turns the observed host into the desired one. Owned objects are
 * judged by what the ownership journal says winproxy wrote (their {@link Fingerprints fingerprint}, their IP,
 * provider address and MAC), never by HNS echoing every field back; objects winproxy does not own are judged by their
 * documents, comparing only what HNS is documented to return (a field HNS omits is not a difference).
 * <ol>
 *   <li><b>Remote endpoints.</b> A remote endpoint is <em>stale</em> when its IP is desired with a provider address
 *       (PA) or MAC other than its own, both being known (the node hosting the IP got a new address), or when a local
 *       endpoint holds its IPs (a pod of this node now has the address: the local endpoint always wins, upstream's
 *       TestRemoteEndpointDeleteDoesNotAffectLocalEndpointWithSameIP). Each desired
 *       remote endpoint IP needs a fitting endpoint: a local one, an owned one that is not stale, or else an unowned
 *       remote one that is not stale and not beside a stale one, which is <em>adopted</em> (recorded as owned, no HNS
 *       call). Otherwise it is created.</li>
 *   <li><b>Load balancers.</b> Each backend IP is resolved to an endpoint ({@link EndpointResolver}; an IP created
 *       in this plan resolves to {@link Fingerprints#PENDING}) and the desired load balancer's fingerprint computed.
 *       Per desired load balancer: an owned one with its key and that fingerprint is up to date (no step) unless its
 *       document was read and differs (content drift); else an existing one that matches by document is adopted
 *       (owned ones first: a journal without fingerprints); else an owned one with the key is modified in place when
 *       {@code modifySupported}, or replaced (delete + create); else an unowned one that collides on the key is
 *       replaced with {@code unowned=true}; else it is created.</li>
 *   <li>Owned load balancers nothing desired claims (stale keys, duplicates of one key, inexpressible ones) are
 *       deleted; unowned ones are reported in {@link Plan#unownedLoadBalancerIds()} and left alone.</li>
 *   <li>Owned remote endpoints whose IP is not desired, or that are stale, are deleted unless a load balancer that
 *       stays as it is (unchanged, adopted or unowned) still references them (HNS refuses to delete a referenced
 *       endpoint). Local endpoints are never deleted, nor are unowned remote endpoints, with one exception: a remote
 *       endpoint whose IPs are all a local endpoint's is deleted whoever made it, as upstream does since kubernetes
 *       PR #138000 (their coexistence misroutes traffic on l2bridge, e.g. DNS timeouts; #131138, #130963).</li>
 * </ol>
 * So a PA change plans: create the new endpoint, modify (or replace) every load balancer that referenced the old one,
 * then delete the old one. A converged host gives a plan without steps. Pure and stateless.
 */
public final class PlanCalculator {

    private PlanCalculator() {
    }

    /** Computes the plan; see the class comment for the rules. */
    public static Plan plan(DesiredState desired, ObservedState observed, Ownership owned, boolean modifySupported) {
        List<PlanStep> steps = new ArrayList<>();
        Map<String, DesiredRemoteEndpoint> desiredByIp = new HashMap<>(desired.remoteEndpoints().size() * 2);
        for (DesiredRemoteEndpoint ep : desired.remoteEndpoints()) {
            desiredByIp.putIfAbsent(ep.ip(), ep);
        }
        Function<String, String> desiredPaOf = ip -> {
            DesiredRemoteEndpoint ep = desiredByIp.get(ip);
            return ep == null ? null : ep.providerAddress();
        };

        Set<String> localIps = new HashSet<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (!ep.remote()) {
                localIps.addAll(ep.ips());
            }
        }
        Set<String> staleIds = new HashSet<>();
        Set<String> staleIps = new HashSet<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (stale(ep, desiredByIp) || (ep.remote() && !ep.ips().isEmpty() && localIps.containsAll(ep.ips()))) {
                staleIds.add(ep.id());
                staleIps.addAll(ep.ips());
            }
        }
        // An IP is covered by a local endpoint or an owned fitting one; beside a stale endpoint an unowned one does
        // not count, so that backends have an unambiguous choice.
        Set<String> coveredIps = new HashSet<>();
        Map<String, ObservedEndpoint> adoptable = new HashMap<>();
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (staleIds.contains(ep.id())) {
                continue;
            }
            boolean ownedEp = owned.ownsRemoteEndpoint(ep.id());
            for (String ip : ep.ips()) {
                if (!ep.remote() || ownedEp) {
                    coveredIps.add(ip);
                } else if (!staleIps.contains(ip) && desiredByIp.containsKey(ip)) {
                    adoptable.putIfAbsent(ip, ep);
                }
            }
        }
        Set<String> adoptedIds = new HashSet<>();
        Set<String> pendingIps = new HashSet<>();
        for (DesiredRemoteEndpoint ep : desired.remoteEndpoints()) {
            if (!coveredIps.add(ep.ip())) {
                continue;
            }
            ObservedEndpoint existing = adoptable.get(ep.ip());
            if (existing != null) {
                steps.add(new PlanStep.AdoptRemoteEndpoint(existing.id(), ep));
                adoptedIds.add(existing.id());
            } else {
                steps.add(new PlanStep.CreateRemoteEndpoint(ep));
                pendingIps.add(ep.ip());
            }
        }

        EndpointResolver resolver = new EndpointResolver(desiredPaOf);
        for (ObservedEndpoint ep : observed.endpoints()) {
            if (!staleIds.contains(ep.id())) {
                resolver.add(ep, owned.ownsRemoteEndpoint(ep.id()) || adoptedIds.contains(ep.id()));
            }
        }

        Map<LoadBalancerKey, List<ObservedLoadBalancer>> byKey = new HashMap<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            if (lb.key() != null) {
                byKey.computeIfAbsent(lb.key(), k -> new ArrayList<>(1)).add(lb);
            }
        }
        Set<String> claimed = new HashSet<>();
        Set<String> keptEndpointIds = new HashSet<>();
        Set<LoadBalancerKey> desiredKeys = new HashSet<>();
        for (DesiredLoadBalancer lb : desired.loadBalancers()) {
            desiredKeys.add(lb.key());
            List<String> refs = refs(lb, resolver, pendingIps);
            List<ObservedLoadBalancer> candidates = unclaimed(byKey.get(lb.key()), claimed);
            if (candidates.isEmpty()) {
                steps.add(new PlanStep.CreateLoadBalancer(lb));
                continue;
            }
            String fingerprint = Fingerprints.loadBalancer(lb, refs);
            ObservedLoadBalancer upToDate = null;
            ObservedLoadBalancer matching = null;
            ObservedLoadBalancer ownedOne = null;
            for (ObservedLoadBalancer o : candidates) {
                boolean isOwned = owned.ownsLoadBalancer(o.id());
                boolean docMatches = o.read() && matches(o, lb, refs);
                if (isOwned && fingerprint.equals(o.fingerprint()) && (!o.read() || docMatches)) {
                    upToDate = o;
                    break;
                }
                if (docMatches && (!isOwned || o.fingerprint() == null)
                        && (matching == null || (isOwned && !owned.ownsLoadBalancer(matching.id())))) {
                    matching = o;
                }
                if (isOwned && ownedOne == null) {
                    ownedOne = o;
                }
            }
            if (upToDate != null) {
                claimed.add(upToDate.id());
                keptEndpointIds.addAll(refs);
            } else if (matching != null) {
                claimed.add(matching.id());
                keptEndpointIds.addAll(refs);
                steps.add(new PlanStep.AdoptLoadBalancer(matching.id(), lb, fingerprint));
            } else if (ownedOne != null) {
                claimed.add(ownedOne.id());
                steps.add(modifySupported ? new PlanStep.ModifyLoadBalancer(ownedOne.id(), lb)
                        : new PlanStep.ReplaceLoadBalancer(ownedOne.id(), lb, false));
            } else {
                claimed.add(candidates.get(0).id());
                steps.add(new PlanStep.ReplaceLoadBalancer(candidates.get(0).id(), lb, true));
            }
        }

        List<String> unowned = new ArrayList<>();
        for (ObservedLoadBalancer lb : observed.loadBalancers()) {
            if (claimed.contains(lb.id())) {
                continue;
            }
            // A load balancer with winproxy's mark that the journal does not hold (the journal was lost or cut)
            // is still winproxy's: it is deleted when nothing needs it, not left behind as unowned.
            if (owned.ownsLoadBalancer(lb.id()) || HnsIds.isWinproxys(lb.id())) {
                steps.add(new PlanStep.DeleteLoadBalancer(lb.id(), staleReason(lb, desiredKeys)));
            } else {
                unowned.add(lb.id());
                lb.endpointIds().forEach(id -> keptEndpointIds.add(HnsIds.normalize(id)));
            }
        }

        for (ObservedEndpoint ep : observed.endpoints()) {
            if (!ep.remote() || keptEndpointIds.contains(HnsIds.normalize(ep.id()))) {
                continue;
            }
            // A remote endpoint with winproxy's mark that the journal does not hold and that was not adopted above is
            // a leftover of winproxy's (the journal was lost or cut): deleted, never left behind as unowned.
            boolean markedLeftover = !owned.ownsRemoteEndpoint(ep.id()) && HnsIds.isWinproxys(ep.id())
                    && !adoptedIds.contains(ep.id());
            boolean staleOwned = owned.ownsRemoteEndpoint(ep.id())
                    && (staleIds.contains(ep.id()) || ep.ips().stream().noneMatch(desiredByIp::containsKey));
            // The one deletion of unowned objects: a remote endpoint shadowing a local endpoint's IP (kubernetes#138000).
            boolean shadowsLocal = !ep.ips().isEmpty() && localIps.containsAll(ep.ips());
            if (markedLeftover || staleOwned || shadowsLocal) {
                steps.add(new PlanStep.DeleteRemoteEndpoint(ep.id(), ep.ips().isEmpty() ? "" : ep.ips().get(0)));
            }
        }
        return new Plan(steps, unowned, desiredPaOf);
    }

    private static List<ObservedLoadBalancer> unclaimed(List<ObservedLoadBalancer> sameKey, Set<String> claimed) {
        if (sameKey == null) {
            return List.of();
        }
        List<ObservedLoadBalancer> out = new ArrayList<>(sameKey.size());
        for (ObservedLoadBalancer o : sameKey) {
            if (!claimed.contains(o.id())) {
                out.add(o);
            }
        }
        return out;
    }

    /** Per backend: the endpoint it resolves to, {@link Fingerprints#PENDING} when created by this plan, or "". */
    private static List<String> refs(DesiredLoadBalancer lb, EndpointResolver resolver, Set<String> pendingIps) {
        List<String> refs = new ArrayList<>(lb.backends().size());
        for (String ip : lb.backends()) {
            if (pendingIps.contains(ip)) {
                refs.add(Fingerprints.PENDING);
            } else {
                String id = resolver.resolve(ip);
                refs.add(id == null ? "" : id);
            }
        }
        return refs;
    }

    /**
     * Whether a load balancer's document serves the desired one, comparing only what HNS is documented to return:
     * key (VIP, protocol, external port), internal port, and the endpoint references, which must be exactly the
     * resolved endpoints of every backend. Flags, distribution and source VIP count only when HNS returned them (a
     * port-mapping flag HNS drops is not a difference; one it reports that is not wanted is).
     */
    static boolean matches(ObservedLoadBalancer o, DesiredLoadBalancer lb, List<String> refs) {
        if (!lb.key().equals(o.key()) || o.internalPort() != lb.internalPort()) {
            return false;
        }
        Set<String> wanted = new HashSet<>(refs);
        if (wanted.contains("") || wanted.contains(Fingerprints.PENDING)) {
            return false;
        }
        Set<String> held = new HashSet<>();
        o.endpointIds().forEach(id -> held.add(HnsIds.normalize(id)));
        return held.equals(wanted) && returnedFieldsMatch(o, lb);
    }

    /**
     * The fields HNS may leave out on read-back count only when it returned them: a returned LB flag, distribution or
     * source VIP must equal the wanted one, and a returned port-mapping flag must be wanted (a dropped one is not a
     * difference).
     */
    private static boolean returnedFieldsMatch(ObservedLoadBalancer o, DesiredLoadBalancer lb) {
        return (o.flags() == 0 || o.flags() == lb.flags())
                && (o.portMappingFlags() & ~lb.portMappingFlags()) == 0
                && (o.distributionType() == 0 || o.distributionType() == lb.distributionType())
                && (o.sourceVip().isEmpty() || o.sourceVip().equals(lb.sourceVip()));
    }

    /**
     * Whether an observed load balancer, with every referenced endpoint present, serves the desired one (see
     * {@link #matches}); the backends are compared by IP.
     */
    public static boolean identical(ObservedLoadBalancer observed, DesiredLoadBalancer desired) {
        return desired.key().equals(observed.key())
                && observed.internalPort() == desired.internalPort()
                && observed.endpointIds().size() == observed.backendIps().size()
                && new HashSet<>(observed.backendIps()).equals(new HashSet<>(desired.backends()))
                && observed.backendIps().size() == desired.backends().size()
                && returnedFieldsMatch(observed, desired);
    }

    /**
     * A remote endpoint is stale when one of its IPs is desired with a provider address (or MAC) other than its own,
     * both being known. Local endpoints are never stale; an empty value (l2bridge, or not returned by HNS) is unknown.
     */
    static boolean stale(ObservedEndpoint ep, Map<String, DesiredRemoteEndpoint> desiredByIp) {
        if (!ep.remote()) {
            return false;
        }
        for (String ip : ep.ips()) {
            DesiredRemoteEndpoint want = desiredByIp.get(ip);
            if (want == null) {
                continue;
            }
            if (!want.providerAddress().isEmpty() && !ep.providerAddress().isEmpty()
                    && !want.providerAddress().equalsIgnoreCase(ep.providerAddress())) {
                return true;
            }
            if (!ep.macAddress().isEmpty() && !sameMac(want.macAddress(), ep.macAddress())) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameMac(String a, String b) {
        return a.replace(':', '-').equalsIgnoreCase(b.replace(':', '-'));
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
