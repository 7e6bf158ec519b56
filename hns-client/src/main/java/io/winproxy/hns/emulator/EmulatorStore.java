package io.winproxy.hns.emulator;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;

/**
 * The emulated host's objects, keyed by lower-case bare GUID, in creation order, plus the emulated HNS version, its
 * faults, pending rehydration and {@link HnsVariant}s.
 *
 * <p>Every rule and lookup the emulator needs per call is answered from an index, in O(1) or O(log n), never by a
 * scan of every object: endpoints by network, endpoints by network and IP, the used IPv4 addresses of each network
 * (IPAM), the load balancers that reference each endpoint, and the frontends load balancers occupy (VIP + protocol +
 * external port, or for VIP-less ones protocol + port + address family). Enumerations are O(result).
 *
 * <p>Not thread-safe: {@link HnsEmulator} serializes access. {@link #revision()} changes on every mutation so callers
 * can tell whether an operation wrote anything; when {@link #recordChanges recording}, every mutation is also kept as
 * a {@link StoreChange} for the state file's change log.
 *
 * <p>Why this class is long (~470 lines): the objects and every index over them must change together in each
 * put and remove, or a lookup answers from a stale index; keeping all of them behind one set of mutators is what
 * makes that hold. The index structures themselves are separate classes ({@link CompactMultimap}, {@link AddressSet}).
 */
final class EmulatorStore {
    private final Map<String, HostComputeNetwork> networks = new LinkedHashMap<>();
    private final Map<String, HostComputeEndpoint> endpoints = new LinkedHashMap<>();
    private final Map<String, HostComputeLoadBalancer> loadBalancers = new LinkedHashMap<>();

    /** Network key -> its endpoints' keys, in creation order. */
    private final Map<String, Set<String>> endpointsByNetwork = new HashMap<>();
    /** Network key -> IP text -> keys of that network's endpoints with that IP. */
    private final Map<String, CompactMultimap<String>> endpointsByIp = new HashMap<>();
    /** Network key -> the IPv4 addresses its endpoints use. */
    private final Map<String, AddressSet> usedIpv4 = new HashMap<>();
    /** Endpoint key -> keys of the load balancers referencing it. */
    private final CompactMultimap<String> referencingLoadBalancers = new CompactMultimap<>();
    /** Occupied frontend -> keys of the load balancers occupying it. */
    private final Map<Frontend, Set<String>> frontends = new HashMap<>();

    /** How many stored load balancers are not DSR (each reserves a range of the dynamic port pool). */
    private int nonDsrLoadBalancers;

    private final Random ids;
    private HnsVersion version;
    private FaultSettings faults = FaultSettings.NONE;
    private PendingRehydration rehydration;
    private Set<HnsVariant> variants = Set.of();
    private long revision;
    private List<StoreChange> changes;

    EmulatorStore(HnsVersion version, Random ids) {
        this.version = version;
        this.ids = ids;
    }

    /** The lookup key of an ID: trimmed, braces removed, lower-case. */
    static String key(String id) {
        return id == null ? "" : id.trim().replace("{", "").replace("}", "").toLowerCase(Locale.ROOT);
    }

    /**
     * A port a load balancer occupies. {@code vip} is the canonical VIP text (IPv6 expanded, lower-case), or null
     * for a VIP-less (NodePort-style) load balancer, which occupies the port for its address family only.
     */
    record Frontend(String vip, int protocol, int port, boolean ipv6) {
        static List<Frontend> of(HostComputeLoadBalancer lb) {
            List<Frontend> out = new ArrayList<>();
            for (LoadBalancerPortMapping pm : lb.portMappings()) {
                if (lb.frontendVips().isEmpty()) {
                    out.add(new Frontend(null, pm.protocol(), pm.externalPort(), lb.isIpv6()));
                } else {
                    for (String vip : lb.frontendVips()) {
                        out.add(new Frontend(Ipv6.canonical(vip), pm.protocol(), pm.externalPort(), false));
                    }
                }
            }
            return out;
        }
    }

    // ---- change recording --------------------------------------------------------------------------------------

    /** Starts keeping every mutation for {@link #drainChanges()} (the state file's change log). */
    void recordChanges() {
        if (changes == null) {
            changes = new ArrayList<>();
        }
    }

    /** The mutations since the last call, in order; empty when nothing changed or nothing is recorded. */
    List<StoreChange> drainChanges() {
        if (changes == null || changes.isEmpty()) {
            return List.of();
        }
        List<StoreChange> out = changes;
        changes = new ArrayList<>();
        return out;
    }

    private void changed(StoreChange change) {
        revision++;
        if (changes != null) {
            changes.add(change);
        }
    }

    long revision() {
        return revision;
    }

    // ---- version and IDs ---------------------------------------------------------------------------------------

    HnsVersion version() {
        return version;
    }

    void setVersion(HnsVersion v) {
        if (!v.equals(version)) {
            version = v;
            changed(StoreChange.version(v.toString()));
        }
    }

    /** How many stored load balancers are not DSR (O(1)). */
    int nonDsrLoadBalancers() {
        return nonDsrLoadBalancers;
    }

    // ---- faults and rehydration (persisted like objects) ------------------------------------------------------

    FaultSettings faults() {
        return faults;
    }

    void setFaults(FaultSettings f) {
        FaultSettings value = f == null ? FaultSettings.NONE : f;
        if (!value.equals(faults)) {
            faults = value;
            changed(StoreChange.faults(value));
        }
    }

    /** The HNS variants switched on (an unmodifiable set; empty: the default profile only). */
    Set<HnsVariant> variants() {
        return variants;
    }

    boolean hasVariant(HnsVariant v) {
        return variants.contains(v);
    }

    void setVariants(Set<HnsVariant> v) {
        Set<HnsVariant> value = v == null || v.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(v));
        if (!value.equals(variants)) {
            variants = value;
            changed(StoreChange.variants(value));
        }
    }

    /** What a restart keeps for rehydration, or null. */
    PendingRehydration rehydration() {
        return rehydration;
    }

    void setRehydration(PendingRehydration r) {
        if (!java.util.Objects.equals(r, rehydration)) {
            rehydration = r;
            changed(StoreChange.rehydration(r));
        }
    }

    /** A fresh bare lower-case (version 4) GUID not used by any object. */
    String newId() {
        while (true) {
            long msb = (ids.nextLong() & ~0xF000L) | 0x4000L;
            long lsb = (ids.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            String id = new UUID(msb, lsb).toString();
            if (!idInUse(id)) {
                return id;
            }
        }
    }

    /** Whether any network, endpoint or load balancer has this ID (any case, with or without braces). */
    boolean idInUse(String id) {
        String k = key(id);
        return networks.containsKey(k) || endpoints.containsKey(k) || loadBalancers.containsKey(k);
    }

    // ---- lookups -----------------------------------------------------------------------------------------------

    Optional<HostComputeNetwork> network(String id) {
        return Optional.ofNullable(networks.get(key(id)));
    }

    Optional<HostComputeEndpoint> endpoint(String id) {
        return Optional.ofNullable(endpoints.get(key(id)));
    }

    Optional<HostComputeLoadBalancer> loadBalancer(String id) {
        return Optional.ofNullable(loadBalancers.get(key(id)));
    }

    /** Every network (a copy; hosts have a handful). */
    List<HostComputeNetwork> networks() {
        return List.copyOf(networks.values());
    }

    /** Every endpoint: a read-only live view, do not mutate the store while iterating it. */
    Collection<HostComputeEndpoint> endpoints() {
        return Collections.unmodifiableCollection(endpoints.values());
    }

    /** Every load balancer: a read-only live view, do not mutate the store while iterating it. */
    Collection<HostComputeLoadBalancer> loadBalancers() {
        return Collections.unmodifiableCollection(loadBalancers.values());
    }

    int objectCount() {
        return networks.size() + endpoints.size() + loadBalancers.size();
    }

    /** The IDs of one network's endpoints, in creation order. */
    List<String> endpointIdsOf(String networkId) {
        Set<String> keys = endpointsByNetwork.getOrDefault(key(networkId), Set.of());
        List<String> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            out.add(endpoints.get(k).id());
        }
        return out;
    }

    /** One network's endpoints, in creation order. */
    List<HostComputeEndpoint> endpointsOf(String networkId) {
        Set<String> keys = endpointsByNetwork.getOrDefault(key(networkId), Set.of());
        List<HostComputeEndpoint> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            out.add(endpoints.get(k));
        }
        return out;
    }

    boolean hasEndpoints(String networkId) {
        return !endpointsByNetwork.getOrDefault(key(networkId), Set.of()).isEmpty();
    }

    /** The endpoints of one network that have {@code ip} (exact text) among their addresses. */
    List<HostComputeEndpoint> endpointsWithIp(String networkId, String ip) {
        CompactMultimap<String> byIp = endpointsByIp.get(key(networkId));
        List<String> keys = byIp == null ? List.of() : byIp.get(ip);
        List<HostComputeEndpoint> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            out.add(endpoints.get(k));
        }
        return out;
    }

    /** The lowest IPv4 address at or above {@code from} that no endpoint of the network uses. */
    long lowestFreeIpv4(String networkId, long from) {
        AddressSet used = usedIpv4.get(key(networkId));
        return used == null ? from : used.lowestFreeFrom(from);
    }

    /** The load balancers that reference an endpoint, in the order they started to. */
    List<HostComputeLoadBalancer> loadBalancersReferencing(String endpointId) {
        List<String> keys = referencingLoadBalancers.get(key(endpointId));
        List<HostComputeLoadBalancer> out = new ArrayList<>(keys.size());
        for (String k : keys) {
            out.add(loadBalancers.get(k));
        }
        return out;
    }

    /**
     * A load balancer other than {@code selfId} (null: none excluded) that occupies one of the frontends of
     * {@code lb} (same VIP, protocol and external port; or both VIP-less with the same protocol, port and family).
     */
    Optional<HostComputeLoadBalancer> collidingLoadBalancer(HostComputeLoadBalancer lb, String selfId) {
        String self = selfId == null ? null : key(selfId);
        for (Frontend f : Frontend.of(lb)) {
            for (String k : frontends.getOrDefault(f, Set.of())) {
                if (!k.equals(self)) {
                    return Optional.of(loadBalancers.get(k));
                }
            }
        }
        return Optional.empty();
    }

    // ---- mutations ---------------------------------------------------------------------------------------------

    void put(HostComputeNetwork n) {
        putQuietly(n);
        changed(StoreChange.put(n));
    }

    void put(HostComputeEndpoint e) {
        putQuietly(e);
        changed(StoreChange.put(e));
    }

    void put(HostComputeLoadBalancer lb) {
        putQuietly(lb);
        changed(StoreChange.put(lb));
    }

    void removeNetwork(String id) {
        networks.remove(key(id));
        changed(StoreChange.remove(StoreChange.Op.REMOVE_NETWORK, id));
    }

    void removeEndpoint(String id) {
        removeEndpointQuietly(key(id));
        changed(StoreChange.remove(StoreChange.Op.REMOVE_ENDPOINT, id));
    }

    void removeLoadBalancer(String id) {
        removeLoadBalancerQuietly(key(id));
        changed(StoreChange.remove(StoreChange.Op.REMOVE_LOAD_BALANCER, id));
    }

    /** Replays one logged change (not recorded again). */
    void apply(StoreChange c) {
        switch (c.op()) {
            case PUT_NETWORK -> putQuietly(c.network());
            case PUT_ENDPOINT -> putQuietly(c.endpoint());
            case PUT_LOAD_BALANCER -> putQuietly(c.loadBalancer());
            case REMOVE_NETWORK -> networks.remove(key(c.id()));
            case REMOVE_ENDPOINT -> removeEndpointQuietly(key(c.id()));
            case REMOVE_LOAD_BALANCER -> removeLoadBalancerQuietly(key(c.id()));
            case SET_VERSION -> version = HnsVersion.parse(c.hnsVersion());
            case SET_FAULTS -> faults = c.faults() == null ? FaultSettings.NONE : c.faults();
            case SET_REHYDRATION -> rehydration = c.rehydration();
            case SET_VARIANTS -> variants = c.variants() == null || c.variants().isEmpty() ? Set.of()
                    : Collections.unmodifiableSet(EnumSet.copyOf(c.variants()));
        }
        revision++;
    }

    /** Replaces the whole content with a loaded document (the version too, when the document has one). */
    void load(EmulatorStateDocument doc) {
        networks.clear();
        endpoints.clear();
        loadBalancers.clear();
        endpointsByNetwork.clear();
        endpointsByIp.clear();
        usedIpv4.clear();
        referencingLoadBalancers.clear();
        frontends.clear();
        nonDsrLoadBalancers = 0;
        doc.networks().forEach(this::putQuietly);
        doc.endpoints().forEach(this::putQuietly);
        doc.loadBalancers().forEach(this::putQuietly);
        if (doc.hnsVersion() != null && !doc.hnsVersion().isBlank()) {
            version = HnsVersion.parse(doc.hnsVersion());
        }
        faults = doc.faults() == null ? FaultSettings.NONE : doc.faults();
        rehydration = doc.pendingRehydration();
        variants = doc.variants() == null || doc.variants().isEmpty() ? Set.of()
                : Collections.unmodifiableSet(EnumSet.copyOf(doc.variants()));
        revision++;
    }

    EmulatorStateDocument toDocument() {
        return new EmulatorStateDocument(version.toString(), new ArrayList<>(networks.values()),
                new ArrayList<>(endpoints.values()), new ArrayList<>(loadBalancers.values()),
                faults.equals(FaultSettings.NONE) ? null : faults, rehydration, variants.isEmpty() ? null : variants);
    }

    // ---- index maintenance -------------------------------------------------------------------------------------

    private void putQuietly(HostComputeNetwork n) {
        networks.put(key(n.id()), n);
    }

    private void putQuietly(HostComputeEndpoint e) {
        String k = key(e.id());
        HostComputeEndpoint old = endpoints.put(k, e);
        if (old != null) {
            unindex(k, old);
        }
        String net = key(e.hostComputeNetwork());
        endpointsByNetwork.computeIfAbsent(net, x -> new LinkedHashSet<>()).add(k);
        CompactMultimap<String> byIp = endpointsByIp.computeIfAbsent(net, x -> new CompactMultimap<>());
        for (String ip : e.ipAddresses()) {
            byIp.add(ip, k);
            // Only local endpoints take addresses from the network's IPAM; remote ones name another node's pods.
            if (!e.isRemote()) {
                Ipv4.parse(ip).ifPresent(a -> usedIpv4.computeIfAbsent(net, x -> new AddressSet()).add(a));
            }
        }
    }

    private void removeEndpointQuietly(String k) {
        HostComputeEndpoint old = endpoints.remove(k);
        if (old != null) {
            unindex(k, old);
        }
    }

    private void unindex(String k, HostComputeEndpoint old) {
        String net = key(old.hostComputeNetwork());
        Set<String> members = endpointsByNetwork.get(net);
        if (members != null) {
            members.remove(k);
            if (members.isEmpty()) {
                endpointsByNetwork.remove(net);
            }
        }
        CompactMultimap<String> byIp = endpointsByIp.get(net);
        for (String ip : old.ipAddresses()) {
            if (byIp != null) {
                byIp.remove(ip, k);
            }
            AddressSet used = usedIpv4.get(net);
            if (used != null && !old.isRemote()) {
                Ipv4.parse(ip).ifPresent(used::remove);
            }
        }
        if (byIp != null && byIp.isEmpty()) {
            endpointsByIp.remove(net);
        }
        AddressSet used = usedIpv4.get(net);
        if (used != null && used.isEmpty()) {
            usedIpv4.remove(net);
        }
    }

    private void putQuietly(HostComputeLoadBalancer lb) {
        String k = key(lb.id());
        HostComputeLoadBalancer old = loadBalancers.put(k, lb);
        if (old != null) {
            unindex(k, old);
        }
        for (String ep : lb.hostComputeEndpoints()) {
            referencingLoadBalancers.add(key(ep), k);
        }
        for (Frontend f : Frontend.of(lb)) {
            frontends.computeIfAbsent(f, x -> new LinkedHashSet<>(2)).add(k);
        }
        if (!lb.isDsr()) {
            nonDsrLoadBalancers++;
        }
    }

    private void removeLoadBalancerQuietly(String k) {
        HostComputeLoadBalancer old = loadBalancers.remove(k);
        if (old != null) {
            unindex(k, old);
        }
    }

    private void unindex(String k, HostComputeLoadBalancer old) {
        if (!old.isDsr()) {
            nonDsrLoadBalancers--;
        }
        for (String ep : old.hostComputeEndpoints()) {
            referencingLoadBalancers.remove(key(ep), k);
        }
        for (Frontend f : Frontend.of(old)) {
            Set<String> owners = frontends.get(f);
            if (owners != null) {
                owners.remove(k);
                if (owners.isEmpty()) {
                    frontends.remove(f);
                }
            }
        }
    }
}
