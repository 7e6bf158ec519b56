package io.winproxy.policy.tracking;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortName;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The endpoints of every service port (kube-proxy's {@code EndpointsMap}), both IP families, each list sorted by
 * "ip:port". An unchanged Service keeps the same list instances across syncs, which the policy's memoisation relies
 * on. Changed only by {@link ProxyState#applyChanges}. Not thread-safe.
 */
public final class EndpointsMap {
    private final Map<String, Map<ServicePortName, List<EndpointInfo>>> byService = new HashMap<>();
    private final Map<String, Integer> localReady = new HashMap<>();
    private Map<String, Integer> localReadySnapshot = Map.of(); // null after a change

    EndpointsMap() {
    }

    /** The endpoints of a service port; empty when there are none. */
    public List<EndpointInfo> get(ServicePortName name) {
        Map<ServicePortName, List<EndpointInfo>> ports = byService.get(name.serviceKey());
        if (ports == null) {
            return List.of();
        }
        return ports.getOrDefault(name, List.of());
    }

    /** The service ports of one Service ("ns/name") that have endpoints. */
    public Map<ServicePortName, List<EndpointInfo>> ofService(String serviceKey) {
        return byService.getOrDefault(serviceKey, Map.of());
    }

    /** A flattened read-only copy, for tools and tests. */
    public Map<ServicePortName, List<EndpointInfo>> asMap() {
        Map<ServicePortName, List<EndpointInfo>> out = new HashMap<>();
        byService.values().forEach(out::putAll);
        return Collections.unmodifiableMap(out);
    }

    /**
     * "ns/name" -> the number of distinct local ready endpoint IPs of the Service (what the service health server
     * reports for {@code externalTrafficPolicy: Local}). An immutable map (in no particular order), kept by each
     * change and copied only after one that changed a count.
     */
    public Map<String, Integer> localReadyEndpoints() {
        if (localReadySnapshot == null) {
            localReadySnapshot = Map.copyOf(localReady);
        }
        return localReadySnapshot;
    }

    void replaceService(String serviceKey, Map<ServicePortName, List<EndpointInfo>> ports) {
        if (ports.isEmpty()) {
            byService.remove(serviceKey);
        } else {
            byService.put(serviceKey, ports);
        }
        Set<String> ips = new HashSet<>();
        ports.values().forEach(list -> list.forEach(ep -> {
            if (ep.local() && ep.ready()) {
                ips.add(ep.ip());
            }
        }));
        Integer count = ips.isEmpty() ? null : ips.size();
        Integer before = count == null ? localReady.remove(serviceKey) : localReady.put(serviceKey, count);
        if (!Objects.equals(before, count)) {
            localReadySnapshot = null;
        }
    }
}
