package io.winproxy.policy.tracking;

import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.model.ServicePortName;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Every proxied service port, by {@link ServicePortName} (kube-proxy's {@code ServicePortMap}), also indexed by
 * Service. Changed only by {@link ProxyState#applyChanges}; read by the sync thread. Not thread-safe.
 */
public final class ServicePortMap {
    private static final ServicePortInfo[] NONE = new ServicePortInfo[0];

    private final Map<ServicePortName, ServicePortInfo> ports = new HashMap<>();
    private final Map<String, ServicePortInfo[]> byService = new HashMap<>();
    private final Map<String, Integer> healthCheckNodePorts = new HashMap<>();
    private Map<String, Integer> healthCheckSnapshot = Map.of(); // null after a change

    ServicePortMap() {
    }

    /** A read-only view. */
    public Map<ServicePortName, ServicePortInfo> asMap() {
        return Collections.unmodifiableMap(ports);
    }

    public Optional<ServicePortInfo> get(ServicePortName name) {
        return Optional.ofNullable(ports.get(name));
    }

    /** The service ports of one Service ("ns/name"), in the order they were added; empty when none. */
    public List<ServicePortInfo> ofService(String serviceKey) {
        return List.of(byService.getOrDefault(serviceKey, NONE));
    }

    public int size() {
        return ports.size();
    }

    /**
     * "ns/name" -> healthCheckNodePort for every {@code type: LoadBalancer} Service with
     * {@code externalTrafficPolicy: Local} that has one; what the service health server serves. An immutable map
     * (in no particular order), kept by each change and copied only after one that changed it.
     */
    public Map<String, Integer> healthCheckNodePorts() {
        if (healthCheckSnapshot == null) {
            healthCheckSnapshot = Map.copyOf(healthCheckNodePorts);
        }
        return healthCheckSnapshot;
    }

    void put(ServicePortInfo info) {
        ServicePortInfo old = ports.put(info.name(), info);
        String key = info.serviceKey();
        ServicePortInfo[] of = byService.getOrDefault(key, NONE);
        if (old != null) {
            of = without(of, old.name());
        }
        of = Arrays.copyOf(of, of.length + 1);
        of[of.length - 1] = info;
        byService.put(key, of);
        updateHealthCheck(key, of);
    }

    ServicePortInfo remove(ServicePortName name) {
        ServicePortInfo old = ports.remove(name);
        if (old != null) {
            String key = old.serviceKey();
            ServicePortInfo[] of = without(byService.getOrDefault(key, NONE), name);
            if (of.length == 0) {
                byService.remove(key);
            } else {
                byService.put(key, of);
            }
            updateHealthCheck(key, of);
        }
        return old;
    }

    private static ServicePortInfo[] without(ServicePortInfo[] of, ServicePortName name) {
        for (int i = 0; i < of.length; i++) {
            if (of[i].name().equals(name)) {
                ServicePortInfo[] out = new ServicePortInfo[of.length - 1];
                System.arraycopy(of, 0, out, 0, i);
                System.arraycopy(of, i + 1, out, i, of.length - i - 1);
                return out;
            }
        }
        return of;
    }

    /** The Service's entry: the health-check node port of its first qualifying port (all share one). */
    private void updateHealthCheck(String key, ServicePortInfo[] of) {
        Integer port = null;
        for (ServicePortInfo info : of) {
            if (info.healthCheckNodePort() > 0 && "LoadBalancer".equals(info.type()) && info.externalPolicyLocal()) {
                port = info.healthCheckNodePort();
                break;
            }
        }
        Integer before = port == null ? healthCheckNodePorts.remove(key) : healthCheckNodePorts.put(key, port);
        if (!Objects.equals(before, port)) {
            healthCheckSnapshot = null;
        }
    }
}
