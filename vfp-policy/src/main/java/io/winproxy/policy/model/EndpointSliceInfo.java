package io.winproxy.policy.model;

import java.time.Instant;
import java.util.List;

/**
 * A Kubernetes EndpointSlice reduced to plain values. Built by the agent's mappers and by tests directly.
 *
 * @param serviceName             the {@code kubernetes.io/service-name} label; null when absent (the slice is
 *                                then ignored)
 * @param addressType             "IPv4", "IPv6" or "FQDN"
 * @param lastChangeTriggerTime   the {@code endpoints.kubernetes.io/last-change-trigger-time} annotation, or null
 */
public record EndpointSliceInfo(String namespace, String name, String serviceName, String addressType,
                                List<SlicePort> ports, List<SliceEndpoint> endpoints, Instant lastChangeTriggerTime) {
    public EndpointSliceInfo {
        ports = ports == null ? List.of() : List.copyOf(ports);
        endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
    }

    /** "namespace/name" of the slice. */
    public String key() {
        return namespace + "/" + name;
    }

    /** A port of a slice; {@code port} null means "all ports" (not usable), {@code protocol} null means TCP. */
    public record SlicePort(String name, String protocol, Integer port) {
    }

    /**
     * An endpoint of a slice. Conditions are nullable as in the API: a null {@code ready} means ready, a null
     * {@code serving} means "same as ready", a null {@code terminating} means not terminating.
     */
    public record SliceEndpoint(List<String> addresses, Boolean ready, Boolean serving, Boolean terminating,
                                String nodeName, String zone, List<String> zoneHints, List<String> nodeHints) {
        public SliceEndpoint {
            addresses = addresses == null ? List.of() : List.copyOf(addresses);
            zoneHints = zoneHints == null ? List.of() : List.copyOf(zoneHints);
            nodeHints = nodeHints == null ? List.of() : List.copyOf(nodeHints);
        }
    }
}
