package io.winproxy.policy.testing;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.EndpointResolver;
import io.winproxy.policy.plan.Fingerprints;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Ownership;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * A small in-memory HNS for policy-level scenario tests, allocating IDs like upstream's fake ({@code EPID-n},
 * {@code LBID-n}, one step per successful create) and keeping an ownership journal. It applies plans the way the
 * agent's dataplane does (backend IPs resolved to endpoint IDs, remote endpoints preferred). It rejects a create that
 * collides on the load-balancer key, like HNS.
 */
public final class FakeHost {
    private final Map<String, ObservedEndpoint> endpoints = new LinkedHashMap<>();
    private final Map<String, ObservedLoadBalancer> loadBalancers = new LinkedHashMap<>();
    /** Owned load balancers (lower-case ID) with the fingerprint recorded when written, as the journal keeps them. */
    private final Map<String, String> ownedLbs = new HashMap<>();
    private final Set<String> ownedEndpoints = new HashSet<>();
    /** The provider address of the last remote endpoint created per IP: the one backends use. */
    private final Map<String, String> wantedPaByIp = new HashMap<>();
    private int nextEp = 1;
    private int nextLb = 1;
    public int writes;

    /** Pre-creates a local (CNI) endpoint with a given ID. */
    public FakeHost localEndpoint(String id, String ip) {
        endpoints.put(id, ObservedEndpoint.local(id, ip));
        return this;
    }

    /** Adds an LB behind winproxy's back (not owned). */
    public FakeHost foreignLoadBalancer(ObservedLoadBalancer lb) {
        loadBalancers.put(lb.id(), lb);
        return this;
    }

    /** Deletes an LB behind winproxy's back. */
    public void deleteBehindTheBack(String id) {
        loadBalancers.remove(id);
    }

    public ObservedState observe() {
        List<ObservedLoadBalancer> lbs = new ArrayList<>();
        for (ObservedLoadBalancer lb : loadBalancers.values()) {
            List<String> ips = new ArrayList<>();
            for (String id : lb.endpointIds()) {
                ObservedEndpoint ep = endpoints.get(id);
                if (ep != null && lb.key() != null) {
                    ep.ip(lb.key().family()).ifPresent(ips::add);
                }
            }
            lbs.add(new ObservedLoadBalancer(lb.id(), lb.key(), lb.internalPort(), lb.endpointIds(), ips,
                    lb.sourceVip(), lb.flags(), lb.portMappingFlags(), lb.distributionType(),
                    ownedLbs.get(lower(lb.id())), true));
        }
        return new ObservedState(new ArrayList<>(endpoints.values()), lbs);
    }

    public Ownership ownership() {
        return new Ownership(Set.copyOf(ownedLbs.keySet()), Set.copyOf(ownedEndpoints));
    }

    public Set<String> localEndpointIps() {
        Set<String> out = new HashSet<>();
        endpoints.values().stream().filter(ep -> !ep.remote()).forEach(ep -> out.addAll(ep.ips()));
        return out;
    }

    public Map<String, ObservedEndpoint> endpoints() {
        return endpoints;
    }

    public Map<String, ObservedLoadBalancer> loadBalancers() {
        return loadBalancers;
    }

    /** The LB serving a key text such as "10.20.30.41:80/TCP" (LoadBalancerKey.toString()), if any. */
    public Optional<ObservedLoadBalancer> lb(String key) {
        return loadBalancers.values().stream().filter(lb -> lb.key() != null && lb.key().toString().equals(key))
                .findFirst();
    }

    public Optional<ObservedEndpoint> endpointByIp(String ip) {
        ObservedEndpoint found = null;
        for (ObservedEndpoint ep : endpoints.values()) {
            if (ep.ips().contains(ip) && (found == null || (!found.remote() && ep.remote()))) {
                found = ep;
            }
        }
        return Optional.ofNullable(found);
    }

    public void apply(Plan plan) {
        for (PlanStep step : plan.steps()) {
            if (step instanceof PlanStep.CreateRemoteEndpoint c) {
                String id = "EPID-" + nextEp++;
                endpoints.put(id, ObservedEndpoint.remote(id, c.endpoint().ip(), c.endpoint().providerAddress()));
                ownedEndpoints.add(lower(id));
                wantedPaByIp.put(c.endpoint().ip(), c.endpoint().providerAddress());
                writes++;
            } else if (step instanceof PlanStep.AdoptRemoteEndpoint a) {
                ownedEndpoints.add(lower(a.id()));
            } else if (step instanceof PlanStep.AdoptLoadBalancer a) {
                ownedLbs.put(lower(a.id()), a.fingerprint());
            } else if (step instanceof PlanStep.CreateLoadBalancer c) {
                create(c.loadBalancer());
            } else if (step instanceof PlanStep.ModifyLoadBalancer m) {
                loadBalancers.put(m.id(), toObserved(m.id(), m.loadBalancer()));
                writes++;
            } else if (step instanceof PlanStep.ReplaceLoadBalancer r) {
                loadBalancers.remove(r.oldId());
                ownedLbs.remove(lower(r.oldId()));
                writes++;
                create(r.loadBalancer());
            } else if (step instanceof PlanStep.DeleteLoadBalancer d) {
                loadBalancers.remove(d.id());
                ownedLbs.remove(lower(d.id()));
                writes++;
            } else if (step instanceof PlanStep.DeleteRemoteEndpoint d) {
                endpoints.remove(d.id());
                ownedEndpoints.remove(lower(d.id()));
                writes++;
            }
        }
    }

    private void create(DesiredLoadBalancer lb) {
        boolean collides = loadBalancers.values().stream().anyMatch(o -> lb.key().equals(o.key()));
        if (collides) {
            throw new IllegalStateException("0x803B0013 port already exists: " + lb.key());
        }
        String id = "LBID-" + nextLb++;
        loadBalancers.put(id, toObserved(id, lb));
        writes++;
    }

    /** Writes a load balancer as the dataplane does: backends resolved, the fingerprint journaled. */
    private ObservedLoadBalancer toObserved(String id, DesiredLoadBalancer lb) {
        EndpointResolver resolver = new EndpointResolver(wantedPaByIp);
        endpoints.values().forEach(ep -> resolver.add(ep, ownedEndpoints.contains(lower(ep.id()))));
        List<String> ids = new ArrayList<>();
        List<String> refs = new ArrayList<>();
        for (String ip : lb.backends()) {
            String ref = resolver.resolve(ip);
            if (ref == null) {
                throw new IllegalStateException("no endpoint for backend " + ip);
            }
            refs.add(ref);
            ids.add(endpoints.keySet().stream().filter(k -> lower(k).equals(ref)).findFirst().orElseThrow());
        }
        ownedLbs.put(lower(id), Fingerprints.loadBalancer(lb, refs));
        return new ObservedLoadBalancer(id, lb.key(), lb.internalPort(), ids, lb.backends(), lb.sourceVip(),
                lb.flags(), lb.portMappingFlags(), lb.distributionType());
    }

    private static String lower(String id) {
        return id.toLowerCase(java.util.Locale.ROOT);
    }

    /** The IP family helper for tests. */
    public static IpFamily family(String ip) {
        return IpFamily.of(ip);
    }
}
