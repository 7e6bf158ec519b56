package io.winproxy.policy.tracking;

import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.ServicePortName;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The endpoints of every service port (kube-proxy's {@code EndpointsMap}), both IP families, each list sorted by
 * "ip:port". An unchanged Service keeps the same list instances across syncs, which the policy's memoisation relies
 * on. Changed only by {@link ProxyState#applyChanges}. Not thread-safe.
 */
public final class EndpointsMap {
    private final Map<String, Map<ServicePortName, List<EndpointInfo>>> byService = new HashMap<>();

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
     * reports for {@code externalTrafficPolicy: Local}).
     */
    public Map<String, Integer> localReadyEndpoints() {
        Map<String, Integer> out = new TreeMap<>();
        byService.forEach((key, ports) -> {
            Set<String> ips = new HashSet<>();
            ports.values().forEach(list -> list.forEach(ep -> {
                if (ep.local() && ep.ready()) {
                    ips.add(ep.ip());
                }
            }));
            if (!ips.isEmpty()) {
                out.put(key, ips.size());
            }
        });
        return out;
    }

    void replaceService(String serviceKey, Map<ServicePortName, List<EndpointInfo>> ports) {
        if (ports.isEmpty()) {
            byService.remove(serviceKey);
        } else {
            byService.put(serviceKey, ports);
        }
    }
}
