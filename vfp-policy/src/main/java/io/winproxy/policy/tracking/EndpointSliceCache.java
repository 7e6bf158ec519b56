package io.winproxy.policy.tracking;

import io.winproxy.policy.desired.PolicyWarning;
import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import io.winproxy.policy.net.IpAddresses;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The EndpointSlices of every Service in two layers (kube-proxy's {@code EndpointSliceCache}): {@code applied} (used by
 * the last sync) and {@code pending} (received since). Slices are keyed by (namespace, service-name label) and slice
 * name; a slice with the same name replaces the earlier one. Only IPv4 and IPv6 slices with a service-name label are
 * accepted (callers filter). Not thread-safe; guarded by {@link EndpointsChangeTracker}.
 */
public final class EndpointSliceCache {

    /** The endpoints of one Service as built from its slices, with warnings about bad slice content. */
    public record ServiceEndpoints(Map<ServicePortName, List<EndpointInfo>> byPort, List<PolicyWarning> warnings) {
        static final ServiceEndpoints EMPTY = new ServiceEndpoints(Map.of(), List.of());

        public ServiceEndpoints {
            byPort = Map.copyOf(byPort);
            warnings = List.copyOf(warnings);
        }
    }

    /** A pending slice event: {@code remove} marks a deletion. */
    private record PendingSlice(EndpointSliceInfo slice, boolean remove) {
    }

    /**
     * The slices of one Service. Sized for the usual one slice (a Service has one until it has over 100 endpoints), and
     * {@code pending} is an empty immutable map between checkouts: at 10,000 Services a default HashMap each would
     * cost 2 MiB.
     */
    private static final class Tracker {
        final Map<String, EndpointSliceInfo> applied = new HashMap<>(2);
        Map<String, PendingSlice> pending = Map.of();

        void pend(String name, PendingSlice slice) {
            if (pending.isEmpty()) {
                pending = new HashMap<>(2);
            }
            pending.put(name, slice);
        }
    }

    private final String nodeName;
    private final Map<String, Tracker> trackers = new HashMap<>();
    private Set<String> pendingKeys = new HashSet<>();

    /** @param nodeName this node's name; endpoints with that {@code nodeName} are local */
    public EndpointSliceCache(String nodeName) {
        this.nodeName = nodeName == null ? "" : nodeName;
    }

    /** "namespace/service" of a slice. */
    static String serviceKey(EndpointSliceInfo slice) {
        return slice.namespace() + "/" + slice.serviceName();
    }

    /**
     * Records a slice add/update ({@code remove=false}) or delete ({@code remove=true}).
     *
     * @return true when this event changes the cache (compared with the pending entry, else the applied one;
     *         ordering of ports and endpoints matters, as upstream)
     */
    public boolean updatePending(EndpointSliceInfo slice, boolean remove) {
        String key = serviceKey(slice);
        Tracker tracker = trackers.get(key);
        PendingSlice existingPending = tracker == null ? null : tracker.pending.get(slice.name());
        EndpointSliceInfo applied = tracker == null ? null : tracker.applied.get(slice.name());
        boolean changed;
        if (existingPending != null) {
            changed = existingPending.remove() != remove || !existingPending.slice().equals(slice);
        } else if (applied != null) {
            changed = remove || !applied.equals(slice);
        } else {
            changed = !remove;
        }
        if (changed) {
            if (tracker == null) {
                tracker = new Tracker();
                trackers.put(key, tracker);
            }
            tracker.pend(slice.name(), new PendingSlice(slice, remove));
            pendingKeys.add(key);
        }
        return changed;
    }

    /** True when some slice change is pending. */
    public boolean hasPending() {
        return !pendingKeys.isEmpty();
    }


    /**
     * Moves pending slices into the applied layer and returns, per changed Service, the endpoints before and after.
     */
    Map<String, Change> checkoutChanges() {
        Map<String, Change> out = new HashMap<>();
        Set<String> keys = pendingKeys;
        pendingKeys = new HashSet<>(); // not clear(): that costs the set's largest capacity (the first sync's)
        for (String key : keys) {
            Tracker tracker = trackers.get(key);
            ServiceEndpoints previous = build(key, tracker.applied.values());
            for (Map.Entry<String, PendingSlice> e : tracker.pending.entrySet()) {
                if (e.getValue().remove()) {
                    tracker.applied.remove(e.getKey());
                } else {
                    tracker.applied.put(e.getKey(), e.getValue().slice());
                }
            }
            tracker.pending = Map.of();
            ServiceEndpoints current = build(key, tracker.applied.values());
            if (tracker.applied.isEmpty()) {
                trackers.remove(key);
            }
            out.put(key, new Change(previous, current));
        }
        return out;
    }

    /** The endpoints of one Service before and after a checkout. */
    record Change(ServiceEndpoints previous, ServiceEndpoints current) {
    }

    /** The current (applied) endpoints of a Service. */
    public ServiceEndpoints applied(String serviceKey) {
        Tracker tracker = trackers.get(serviceKey);
        return tracker == null ? ServiceEndpoints.EMPTY : build(serviceKey, tracker.applied.values());
    }

    private ServiceEndpoints build(String serviceKey, Iterable<EndpointSliceInfo> slices) {
        // Slices are visited in name order so that duplicate resolution is deterministic (upstream: hash order).
        TreeMap<String, EndpointSliceInfo> sorted = new TreeMap<>();
        slices.forEach(s -> sorted.put(s.name(), s));
        if (sorted.isEmpty()) {
            return ServiceEndpoints.EMPTY;
        }
        List<PolicyWarning> warnings = new ArrayList<>();
        Map<ServicePortName, LinkedHashMap<String, EndpointInfo>> byPort = new HashMap<>();
        for (EndpointSliceInfo slice : sorted.values()) {
            for (EndpointSliceInfo.SlicePort port : slice.ports()) {
                if (port.port() == null || port.port() <= 0 || port.port() > 65535) {
                    continue; // "all ports" or invalid: not usable, as upstream
                }
                Optional<Protocol> protocol = Protocol.parse(port.protocol());
                if (protocol.isEmpty()) {
                    warnings.add(new PolicyWarning("EndpointSlice", slice.namespace(), slice.name(),
                            "UnsupportedProtocol", "port " + port.port() + " has unknown protocol "
                            + port.protocol() + "; skipped"));
                    continue;
                }
                ServicePortName spn = new ServicePortName(slice.namespace(), slice.serviceName(),
                        port.name() == null ? "" : port.name(), protocol.get());
                LinkedHashMap<String, EndpointInfo> endpoints = byPort.computeIfAbsent(spn, k -> new LinkedHashMap<>());
                for (EndpointSliceInfo.SliceEndpoint ep : slice.endpoints()) {
                    if (ep.addresses().isEmpty()) {
                        continue;
                    }
                    Optional<String> ip = IpAddresses.canonical(ep.addresses().get(0));
                    if (ip.isEmpty()) {
                        warnings.add(new PolicyWarning("EndpointSlice", slice.namespace(), slice.name(),
                                "InvalidEndpointAddress", "endpoint address '" + ep.addresses().get(0)
                                + "' is not an IP address; skipped"));
                        continue;
                    }
                    // The slice's own text when it is canonical already: one string per endpoint, not two.
                    String address = ep.addresses().get(0);
                    EndpointInfo info = toEndpoint(ip.get().equals(address) ? address : ip.get(), port.port(), ep);
                    EndpointInfo existing = endpoints.get(info.key());
                    if (existing != null) {
                        warnings.add(new PolicyWarning("EndpointSlice", slice.namespace(), slice.name(),
                                "DuplicateEndpoint", "endpoint " + info.key() + " is listed more than once for"
                                + " Service " + slice.serviceName() + "; one copy is used"
                                + (existing.terminating() && !info.terminating() ? " (the non-terminating one)"
                                : "")));
                    }
                    if (existing == null || !info.terminating()) {
                        endpoints.put(info.key(), info);
                    }
                }
            }
        }
        Map<ServicePortName, List<EndpointInfo>> out = new HashMap<>();
        byPort.forEach((spn, eps) -> {
            if (!eps.isEmpty()) {
                List<EndpointInfo> list = new ArrayList<>(eps.values());
                list.sort((a, b) -> a.key().compareTo(b.key()));
                out.put(spn, List.copyOf(list));
            }
        });
        // Kept per Service until its next change: an immutable copy (one port: 24 bytes, where a HashMap is 160).
        return new ServiceEndpoints(Map.copyOf(out), distinct(warnings));
    }

    private static List<PolicyWarning> distinct(List<PolicyWarning> warnings) {
        return List.copyOf(new LinkedHashSet<>(warnings));
    }

    private EndpointInfo toEndpoint(String ip, int port, EndpointSliceInfo.SliceEndpoint ep) {
        boolean ready = ep.ready() == null || ep.ready();
        boolean serving = ep.serving() == null ? ready : ep.serving();
        boolean terminating = ep.terminating() != null && ep.terminating();
        String node = ep.nodeName() == null ? "" : ep.nodeName();
        boolean local = !nodeName.isEmpty() && nodeName.equals(node);
        return new EndpointInfo(ip, port, node, ep.zone(), local, ready, serving, terminating,
                Set.copyOf(ep.zoneHints()), Set.copyOf(ep.nodeHints()));
    }
}
