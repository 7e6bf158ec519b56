package io.winproxy.policy.desired;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * Keeps the {@link DesiredState} of a {@link PolicyCalculator} assembled from the per-service-port results, updated by
 * the changed service ports only. The rules are those of a plain assembly that visits the service ports in name order
 * (namespace, name, port name, protocol):
 * <ul>
 *   <li>the first load balancer of a key wins; a later one with that key is not programmed and, unless it is the same
 *       except for its service port, gets a {@code LoadBalancerConflict} warning (after its port's own warnings);</li>
 *   <li>the overlay ClusterIP endpoint of an IP comes from the first service port that makes one;</li>
 *   <li>a backend's remote endpoint comes from the first service port that lists it, and only while a winning load
 *       balancer uses that IP and no ClusterIP endpoint has it;</li>
 *   <li>lists keep that visiting order: load balancers; ClusterIP endpoints, then backends; the input warnings, then
 *       each port's warnings, without repeats.</li>
 * </ul>
 * To keep this without the full visit, each key knows its claiming load balancers in visiting order, and the
 * {@link RemoteEndpointIndex} knows per IP its ClusterIP-endpoint ports, its listing ports and how many winning load
 * balancers use it. A change re-decides only the keys and IPs the changed ports touch, and re-assembles only the
 * ports whose share changed; {@link PortOrder} keeps the shares in visiting order.
 *
 * <p>Not thread-safe; the {@link DesiredState}s it hands out are immutable.
 */
final class DesiredAssembler {
    private static final Claim[] NO_CLAIMS = new Claim[0];

    /** What one service port puts into a {@link DesiredState}: immutable. */
    record Contribution(List<DesiredLoadBalancer> loadBalancers, List<DesiredRemoteEndpoint> clusterIpEndpoints,
                        List<DesiredRemoteEndpoint> backendEndpoints, List<PolicyWarning> warnings) {
        static final Contribution NONE = new Contribution(List.of(), List.of(), List.of(), List.of());
    }

    /** The live state of one service port: the inputs and result of its last computation and its share. */
    static final class Port {
        final ServicePortName name;
        ServicePortInfo service;
        List<EndpointInfo> endpoints;
        /** The hash codes of the endpoints' IPs, for {@link #portsWithEndpoints} to scan without visiting each. */
        int[] endpointHashes;
        ServicePortPolicy.Result result;
        Contribution contribution = Contribution.NONE;
        boolean removed;
        /** The one-port array, shared by every IP only this port lists (most of them). */
        final Port[] alone = {this};

        private Port(ServicePortName name) {
            this.name = name;
        }
    }

    /** The load balancer {@code index} of a port's result. */
    private record Claim(Port port, int index, DesiredLoadBalancer lb) {
    }

    /** The claims of one key in assembly order, and the winner whose backends are counted as references. */
    private static final class KeyClaims {
        Claim[] claims = NO_CLAIMS;
        DesiredLoadBalancer counted;
    }

    private final Map<ServicePortName, Port> ports = new HashMap<>();
    private final PortOrder order = new PortOrder();
    private final Map<LoadBalancerKey, KeyClaims> claims = new HashMap<>();
    private final RemoteEndpointIndex remotes = new RemoteEndpointIndex(this::markDirty);
    private final PersistentMap.Editor<LoadBalancerKey, DesiredLoadBalancer> loadBalancersByKey =
            PersistentMap.<LoadBalancerKey, DesiredLoadBalancer>empty().editor();
    private final TreeMap<ServicePortName, List<PolicyWarning>> warnedPorts = new TreeMap<>(PortOrder.NAME_ORDER);
    private List<PolicyWarning> inputWarnings = List.of();
    private List<PolicyWarning> warnings = List.of();
    private boolean warningsStale;
    private Object lastToken;
    /** True until the first snapshot: everything is decided then, so nothing is marked dirty. */
    private boolean fresh = true;

    // the current round; new sets each round, as clearing or iterating a set costs its largest capacity
    private List<Port> added = new ArrayList<>();
    private List<Port> removed = new ArrayList<>();
    private Set<LoadBalancerKey> dirtyKeys = new HashSet<>();
    private Set<Port> dirtyPorts = new HashSet<>();
    private Set<ServicePortName> changedPorts = new HashSet<>();
    private Set<LoadBalancerKey> changedKeys = new HashSet<>();

    /** The live port of {@code name}, or null. */
    Port port(ServicePortName name) {
        return ports.get(name);
    }

    /**
     * The live ports with an endpoint (ready or not) at one of {@code ips}: one pass over the IP hash codes of every
     * port, visiting the endpoints only of a port with a matching hash.
     */
    Set<ServicePortName> portsWithEndpoints(Set<String> ips) {
        Set<ServicePortName> out = new HashSet<>();
        if (ips.isEmpty()) {
            return out;
        }
        int[] hashes = ips.stream().mapToInt(String::hashCode).sorted().toArray();
        for (Port port : ports.values()) {
            for (int hash : port.endpointHashes) {
                if (Arrays.binarySearch(hashes, hash) >= 0
                        && port.endpoints.stream().anyMatch(ep -> ips.contains(ep.ip()))) {
                    out.add(port.name);
                    break;
                }
            }
        }
        return out;
    }

    /** The names of every live port (a copy). */
    List<ServicePortName> names() {
        return new ArrayList<>(ports.keySet());
    }

    /** Sets the inputs and result of a service port (new or changed). */
    void set(ServicePortName name, ServicePortInfo service, List<EndpointInfo> endpoints,
             ServicePortPolicy.Result result) {
        Port port = ports.get(name);
        if (port == null) {
            port = new Port(name);
            ports.put(name, port);
            added.add(port);
        } else if (port.result.equals(result)) {
            port.service = service;
            setEndpoints(port, endpoints);
            return;
        } else {
            retract(port);
        }
        port.service = service;
        setEndpoints(port, endpoints);
        port.result = result;
        enter(port);
        markDirty(port);
    }

    private static void setEndpoints(Port port, List<EndpointInfo> endpoints) {
        if (port.endpoints != endpoints) {
            port.endpoints = endpoints;
            port.endpointHashes = new int[endpoints.size()];
            for (int i = 0; i < endpoints.size(); i++) {
                port.endpointHashes[i] = endpoints.get(i).ip().hashCode();
            }
        }
    }

    /** Removes a service port that is gone. */
    void remove(ServicePortName name) {
        Port port = ports.remove(name);
        if (port == null) {
            return;
        }
        retract(port);
        port.removed = true;
        removed.add(port);
        markDirty(port);
    }

    private void markDirty(Port port) {
        if (!fresh) {
            dirtyPorts.add(port);
        }
    }

    private void markDirty(LoadBalancerKey key) {
        if (!fresh) {
            dirtyKeys.add(key);
        }
    }

    private void enter(Port port) {
        ServicePortPolicy.Result result = port.result;
        List<DesiredLoadBalancer> lbs = result.loadBalancers();
        for (int i = 0; i < lbs.size(); i++) {
            DesiredLoadBalancer lb = lbs.get(i);
            KeyClaims kc = claims.computeIfAbsent(lb.key(), k -> new KeyClaims());
            kc.claims = insert(kc.claims, new Claim(port, i, lb));
            markDirty(lb.key());
        }
        remotes.enter(port, result);
    }

    private void retract(Port port) {
        ServicePortPolicy.Result result = port.result;
        for (DesiredLoadBalancer lb : result.loadBalancers()) {
            KeyClaims kc = claims.get(lb.key());
            kc.claims = without(kc.claims, port);
            markDirty(lb.key());
        }
        remotes.retract(port, result);
    }

    /**
     * Decides the keys, IPs and port shares this round touched (all of them in the first round) and returns the new
     * state. The first state's {@link DesiredState.Changes} say everything changed.
     */
    DesiredState snapshot(List<PolicyWarning> input) {
        boolean track = !fresh;
        for (LoadBalancerKey key : fresh ? new ArrayList<>(claims.keySet()) : dirtyKeys) {
            decideKey(key, track);
        }
        Set<String> changedIps = remotes.decide();
        List<Port> reshared = new ArrayList<>();
        for (Port port : fresh ? added : dirtyPorts) {
            Contribution next = port.removed ? Contribution.NONE : contribution(port);
            if (next.equals(port.contribution)) {
                continue;
            }
            reshared.add(port);
            if (track) {
                changedPorts.add(port.name);
            }
            if (!next.warnings().equals(port.contribution.warnings())) {
                warningsStale = true;
                if (next.warnings().isEmpty()) {
                    if (!port.removed || !ports.containsKey(port.name)) {
                        warnedPorts.remove(port.name); // unless the name came back as a new port this round
                    }
                } else {
                    warnedPorts.put(port.name, next.warnings());
                }
            }
            port.contribution = next;
        }
        order.update(removed, added, reshared);
        if (warningsStale || !input.equals(inputWarnings)) {
            LinkedHashSet<PolicyWarning> all = new LinkedHashSet<>(input);
            warnedPorts.values().forEach(all::addAll);
            warnings = List.copyOf(all);
            inputWarnings = List.copyOf(input);
            warningsStale = false;
        }
        DesiredState.Changes changes = track ? new DesiredState.Changes(false, changedPorts, changedKeys, changedIps)
                : DesiredState.Changes.EVERYTHING;
        fresh = false;
        Object token = new Object();
        DesiredState state = new DesiredState(order.shares(), warnings,
                loadBalancersByKey.snapshot(), remotes.snapshot(), changes, token, lastToken);
        lastToken = token;
        added = new ArrayList<>();
        removed = new ArrayList<>();
        dirtyKeys = new HashSet<>();
        dirtyPorts = new HashSet<>();
        changedPorts = new HashSet<>();
        changedKeys = new HashSet<>();
        return state;
    }

    /** The winner of a key: desired, its backends counted as references; every claimant's share is re-decided. */
    private void decideKey(LoadBalancerKey key, boolean track) {
        KeyClaims kc = claims.get(key);
        DesiredLoadBalancer winner = kc.claims.length == 0 ? null : kc.claims[0].lb();
        if (winner != kc.counted) {
            if (kc.counted != null) {
                remotes.reference(kc.counted.backends(), -1);
            }
            if (winner != null) {
                remotes.reference(winner.backends(), 1);
            }
            kc.counted = winner;
        }
        DesiredLoadBalancer before = winner == null ? loadBalancersByKey.remove(key)
                : loadBalancersByKey.put(key, winner);
        if (track && !Objects.equals(before, winner)) {
            changedKeys.add(key);
        }
        for (Claim claim : kc.claims) {
            markDirty(claim.port());
        }
        if (kc.claims.length == 0) {
            claims.remove(key);
        }
    }

    /** A port's share; the result's own lists are reused when it gets all of them (the usual case). */
    private Contribution contribution(Port port) {
        ServicePortPolicy.Result result = port.result;
        List<DesiredLoadBalancer> lbs = result.loadBalancers();
        List<DesiredLoadBalancer> won = lbs;
        List<PolicyWarning> warned = result.warnings();
        for (int i = 0; i < lbs.size(); i++) {
            DesiredLoadBalancer lb = lbs.get(i);
            Claim first = claims.get(lb.key()).claims[0];
            boolean wins = first.port() == port && first.index() == i;
            if (wins) {
                if (won != lbs) {
                    won.add(lb);
                }
                continue;
            }
            if (won == lbs) {
                won = new ArrayList<>(lbs.subList(0, i));
            }
            if (!sameExceptService(first.lb(), lb)) {
                if (warned == result.warnings()) {
                    warned = new ArrayList<>(warned);
                }
                warned.add(new PolicyWarning("Service", lb.service().namespace(), lb.service().name(),
                        "LoadBalancerConflict", lb.kind().displayName() + " " + lb.key()
                        + " is already used by Service " + first.lb().service() + "; not programmed"));
            }
        }
        List<DesiredRemoteEndpoint> clusterIpEndpoints = emitted(port, result.clusterIpEndpoints());
        List<DesiredRemoteEndpoint> backends = emitted(port, result.remoteEndpoints());
        if (won.isEmpty() && clusterIpEndpoints.isEmpty() && backends.isEmpty() && warned.isEmpty()) {
            return Contribution.NONE;
        }
        return new Contribution(won == lbs ? lbs : List.copyOf(won), clusterIpEndpoints, backends,
                warned == result.warnings() ? warned : List.copyOf(warned));
    }

    /** The endpoints of {@code all} this port provides; {@code all} itself when it provides each. */
    private List<DesiredRemoteEndpoint> emitted(Port port, List<DesiredRemoteEndpoint> all) {
        List<DesiredRemoteEndpoint> out = null;
        for (int i = 0; i < all.size(); i++) {
            DesiredRemoteEndpoint ep = all.get(i);
            boolean mine = remotes.provides(port, ep);
            if (!mine && out == null) {
                out = new ArrayList<>(all.subList(0, i));
            } else if (mine && out != null) {
                out.add(ep);
            }
        }
        return out == null ? all : List.copyOf(out);
    }

    static boolean sameExceptService(DesiredLoadBalancer a, DesiredLoadBalancer b) {
        return a.service().serviceKey().equals(b.service().serviceKey()) && a.kind() == b.kind()
                && a.internalPort() == b.internalPort() && a.backends().equals(b.backends())
                && a.sourceVip().equals(b.sourceVip()) && a.flags() == b.flags()
                && a.portMappingFlags() == b.portMappingFlags() && a.distributionType() == b.distributionType();
    }

    private static Claim[] insert(Claim[] claims, Claim claim) {
        int at = claims.length;
        while (at > 0 && compare(claims[at - 1], claim) > 0) {
            at--;
        }
        Claim[] out = Arrays.copyOf(claims, claims.length + 1);
        System.arraycopy(claims, at, out, at + 1, claims.length - at);
        out[at] = claim;
        return out;
    }

    private static int compare(Claim a, Claim b) {
        int c = PortOrder.compareNames(a.port().name, b.port().name);
        return c != 0 ? c : Integer.compare(a.index(), b.index());
    }

    private static Claim[] without(Claim[] claims, Port port) {
        int kept = 0;
        for (Claim claim : claims) {
            if (claim.port() != port) {
                kept++;
            }
        }
        Claim[] out = kept == 0 ? NO_CLAIMS : new Claim[kept];
        int i = 0;
        for (Claim claim : claims) {
            if (claim.port() != port) {
                out[i++] = claim;
            }
        }
        return out;
    }
}
