package io.winproxy.hns.emulator;

import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;

/**
 * The emulated host's objects, keyed by lower-case GUID, in creation order, plus the emulated HNS version. Not
 * thread-safe: {@link HnsEmulator} serializes access. {@link #revision()} changes on every mutation so callers can
 * tell whether an operation wrote anything.
 */
final class EmulatorStore {
    private final Map<String, HostComputeNetwork> networks = new LinkedHashMap<>();
    private final Map<String, HostComputeEndpoint> endpoints = new LinkedHashMap<>();
    private final Map<String, HostComputeLoadBalancer> loadBalancers = new LinkedHashMap<>();
    private final Random ids;
    private HnsVersion version;
    private long revision;

    EmulatorStore(HnsVersion version, Random ids) {
        this.version = version;
        this.ids = ids;
    }

    static String key(String id) {
        return id == null ? "" : id.trim().replace("{", "").replace("}", "").toLowerCase(Locale.ROOT);
    }

    long revision() {
        return revision;
    }

    HnsVersion version() {
        return version;
    }

    void setVersion(HnsVersion v) {
        if (!v.equals(version)) {
            version = v;
            revision++;
        }
    }

    /** A fresh bare lower-case (version 4) GUID not used by any object. */
    String newId() {
        while (true) {
            long msb = (ids.nextLong() & ~0xF000L) | 0x4000L;
            long lsb = (ids.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
            String id = new UUID(msb, lsb).toString();
            if (!networks.containsKey(id) && !endpoints.containsKey(id) && !loadBalancers.containsKey(id)) {
                return id;
            }
        }
    }

    Optional<HostComputeNetwork> network(String id) {
        return Optional.ofNullable(networks.get(key(id)));
    }

    Optional<HostComputeEndpoint> endpoint(String id) {
        return Optional.ofNullable(endpoints.get(key(id)));
    }

    Optional<HostComputeLoadBalancer> loadBalancer(String id) {
        return Optional.ofNullable(loadBalancers.get(key(id)));
    }

    List<HostComputeNetwork> networks() {
        return List.copyOf(networks.values());
    }

    List<HostComputeEndpoint> endpoints() {
        return List.copyOf(endpoints.values());
    }

    List<HostComputeLoadBalancer> loadBalancers() {
        return List.copyOf(loadBalancers.values());
    }

    void put(HostComputeNetwork n) {
        networks.put(key(n.id()), n);
        revision++;
    }

    void put(HostComputeEndpoint e) {
        endpoints.put(key(e.id()), e);
        revision++;
    }

    void put(HostComputeLoadBalancer lb) {
        loadBalancers.put(key(lb.id()), lb);
        revision++;
    }

    void removeNetwork(String id) {
        networks.remove(key(id));
        revision++;
    }

    void removeEndpoint(String id) {
        endpoints.remove(key(id));
        revision++;
    }

    void removeLoadBalancer(String id) {
        loadBalancers.remove(key(id));
        revision++;
    }

    /** Replaces the whole content with a loaded document (the version too, when the document has one). */
    void load(EmulatorStateDocument doc) {
        networks.clear();
        endpoints.clear();
        loadBalancers.clear();
        doc.networks().forEach(n -> networks.put(key(n.id()), n));
        doc.endpoints().forEach(e -> endpoints.put(key(e.id()), e));
        doc.loadBalancers().forEach(lb -> loadBalancers.put(key(lb.id()), lb));
        if (doc.hnsVersion() != null && !doc.hnsVersion().isBlank()) {
            version = HnsVersion.parse(doc.hnsVersion());
        }
    }

    EmulatorStateDocument toDocument() {
        return new EmulatorStateDocument(version.toString(), new ArrayList<>(networks.values()),
                new ArrayList<>(endpoints.values()), new ArrayList<>(loadBalancers.values()));
    }
}
