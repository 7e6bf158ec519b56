package io.winproxy.policy.tracking;

import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every proxied service port, by {@link ServicePortName} (kube-proxy's {@code ServicePortMap}). Changed only by
 * {@link ProxyState#applyChanges}; read by the sync thread. Not thread-safe.
 */
public final class ServicePortMap {
    private final Map<ServicePortName, ServicePortInfo> ports = new HashMap<>();

    ServicePortMap() {
    }

    /** A read-only view. */
    public Map<ServicePortName, ServicePortInfo> asMap() {
        return Collections.unmodifiableMap(ports);
    }

    public Optional<ServicePortInfo> get(ServicePortName name) {
        return Optional.ofNullable(ports.get(name));
    }

    public int size() {
        return ports.size();
    }

    /**
     * "ns/name" -> healthCheckNodePort for every {@code type: LoadBalancer} Service with
     * {@code externalTrafficPolicy: Local} that has one; what the service health server serves.
     */
    public Map<String, Integer> healthCheckNodePorts() {
        Map<String, Integer> out = new TreeMap<>();
        for (ServicePortInfo info : ports.values()) {
            if (info.healthCheckNodePort() > 0 && "LoadBalancer".equals(info.type()) && info.externalPolicyLocal()) {
                out.put(info.serviceKey(), info.healthCheckNodePort());
            }
        }
        return out;
    }

    void put(ServicePortInfo info) {
        ports.put(info.name(), info);
    }

    ServicePortInfo remove(ServicePortName name) {
        return ports.remove(name);
    }
}
