package io.winproxy.policy.testing;

import io.winproxy.policy.model.EndpointSliceInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Test builder for {@link EndpointSliceInfo}. */
public final class Slice {
    private final String namespace;
    private final String name;
    private final String serviceName;
    private String addressType = "IPv4";
    private final List<EndpointSliceInfo.SlicePort> ports = new ArrayList<>();
    private final List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>();
    private Instant trigger;

    private Slice(String namespace, String name, String serviceName) {
        this.namespace = namespace;
        this.name = name;
        this.serviceName = serviceName;
    }

    public static Slice slice(String namespace, String name, String serviceName) {
        return new Slice(namespace, name, serviceName);
    }

    public Slice addressType(String value) {
        addressType = value;
        return this;
    }

    public Slice port(String portName, String protocol, Integer port) {
        ports.add(new EndpointSliceInfo.SlicePort(portName, protocol, port));
        return this;
    }

    public Slice port(String portName, int port) {
        return port(portName, "TCP", port);
    }

    /** A ready endpoint on {@code node}. */
    public Slice ready(String ip, String node) {
        return endpoint(ip, node, true, true, false);
    }

    public Slice endpoint(String ip, String node, Boolean ready, Boolean serving, Boolean terminating) {
        endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(ip), ready, serving, terminating, node, null,
                null, null));
        return this;
    }

    public Slice endpoint(EndpointSliceInfo.SliceEndpoint endpoint) {
        endpoints.add(endpoint);
        return this;
    }

    public Slice hinted(String ip, String node, String zone, List<String> zoneHints, List<String> nodeHints) {
        endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(ip), true, true, false, node, zone, zoneHints,
                nodeHints));
        return this;
    }

    public Slice triggerTime(Instant value) {
        trigger = value;
        return this;
    }

    public EndpointSliceInfo build() {
        return new EndpointSliceInfo(namespace, name, serviceName, addressType, ports, endpoints, trigger);
    }
}
