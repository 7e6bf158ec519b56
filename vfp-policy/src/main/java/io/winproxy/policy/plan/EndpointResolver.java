package io.winproxy.policy.plan;

import io.winproxy.policy.net.CompactMultimap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * Resolves a backend IP to the HNS endpoint a load balancer should reference. When several endpoints hold the IP,
 * the best wins, in this order: not being deleted by the current plan; local over remote (a pod of this node has the
 * address: traffic must not leave the node for a leftover remote endpoint, as upstream's
 * TestRemoteEndpointDeleteDoesNotAffectLocalEndpointWithSameIP requires); a remote
 * one whose provider address is the wanted one (a PA change leaves the old endpoint beside the new one until every
 * load balancer has moved); owned over unowned; the most recently added.
 *
 * <p>Mutable and not thread-safe: the planner fills it from the observed host, the dataplane keeps it current as it
 * creates and deletes endpoints. Pure: no I/O. IDs are compared lower-case.
 */
public final class EndpointResolver {
    private record Candidate(String id, boolean remote, String providerAddress, boolean owned, long order) {
    }

    private final CompactMultimap<String, Candidate> byIp = new CompactMultimap<>();
    private final Function<String, String> wantedPaOf;
    private final Set<String> retiring = new HashSet<>();
    private long order;

    /** @param wantedPaByIp the desired provider address per remote-endpoint IP (read, not copied) */
    public EndpointResolver(Map<String, String> wantedPaByIp) {
        this(wantedPaByIp::get);
    }

    /** @param wantedPaOf the desired provider address of a remote-endpoint IP, or null */
    public EndpointResolver(Function<String, String> wantedPaOf) {
        this.wantedPaOf = wantedPaOf;
    }

    /** Adds an endpoint (after those added before it). */
    public void add(ObservedEndpoint endpoint, boolean owned) {
        Candidate c = new Candidate(HnsIds.normalize(endpoint.id()), endpoint.remote(), endpoint.providerAddress(), owned,
                order++);
        for (String ip : endpoint.ips()) {
            byIp.add(ip, c);
        }
    }

    /** Removes an endpoint from the IPs it held. */
    public void remove(String id, List<String> ips) {
        String key = HnsIds.normalize(id);
        for (String ip : ips) {
            byIp.removeIf(ip, c -> c.id().equals(key));
        }
    }

    /** Marks an endpoint as being deleted by the current plan: chosen only when nothing else holds its IP. */
    public void retire(String id) {
        retiring.add(HnsIds.normalize(id));
    }

    /** The lower-case ID of the endpoint {@code ip} resolves to, or null. */
    public String resolve(String ip) {
        List<Candidate> list = byIp.get(ip);
        if (list.isEmpty()) {
            return null;
        }
        if (list.size() == 1) {
            return list.get(0).id();
        }
        String wantedPa = wantedPaOf.apply(ip);
        Candidate best = null;
        for (Candidate c : list) {
            if (best == null || better(c, best, wantedPa)) {
                best = c;
            }
        }
        return best.id();
    }

    private boolean better(Candidate a, Candidate b, String wantedPa) {
        int cmp = Boolean.compare(!retiring.contains(a.id()), !retiring.contains(b.id()));
        if (cmp == 0) {
            cmp = Boolean.compare(!a.remote(), !b.remote());
        }
        if (cmp == 0) {
            cmp = Boolean.compare(wanted(a, wantedPa), wanted(b, wantedPa));
        }
        if (cmp == 0) {
            cmp = Boolean.compare(a.owned(), b.owned());
        }
        return cmp > 0 || (cmp == 0 && a.order() > b.order());
    }

    private static boolean wanted(Candidate c, String wantedPa) {
        return c.remote() && wantedPa != null && !wantedPa.isEmpty() && wantedPa.equalsIgnoreCase(c.providerAddress());
    }

}
