package io.winproxy.agent.check;

import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.List;
import java.util.Optional;

/**
 * How {@code check} read the cluster: from where, and either the objects (mapped as the proxy maps them) or why it
 * could not.
 *
 * @param source a description of the source, e.g. {@code https://10.0.0.1:6443} or {@code --example-cluster}
 * @param live   true for the API server, false for manifests
 * @param mapped the objects; empty lists when the read failed
 * @param error  why the read failed, "" when it succeeded
 */
public record ClusterRead(String source, boolean live, ClusterObjects.Mapped mapped, String error) {
    public ClusterRead {
        mapped = mapped == null ? new ClusterObjects.Mapped(List.of(), List.of(), List.of()) : mapped;
        error = error == null ? "" : error;
    }

    public static ClusterRead failed(String source, String error) {
        return new ClusterRead(source, true, null, error);
    }

    public boolean ok() {
        return error.isEmpty();
    }

    public List<NodeInfo> nodes() {
        return mapped.nodes();
    }

    public List<ServiceInfo> services() {
        return mapped.services();
    }

    public Optional<NodeInfo> node(String name) {
        return mapped.nodes().stream().filter(n -> n.name().equalsIgnoreCase(name)).findFirst();
    }
}
