package io.winproxy.agent.pipeline;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.kube.EndpointSliceMapper;
import io.winproxy.agent.kube.NodeMapper;
import io.winproxy.agent.kube.ServiceMapper;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One read of the cluster as {@code plan} and {@code trace} see it: Nodes, Services and EndpointSlices, from
 * manifests or listed from the API server. {@link #selected} applies the proxy's own watch selection
 * ({@link WatchOptions}: the service-proxy-name label and headless Services), so that these tools and the agent
 * handle the same objects.
 */
public record ClusterObjects(List<Node> nodes, List<Service> services, List<EndpointSlice> endpointSlices) {
    public ClusterObjects {
        nodes = List.copyOf(nodes);
        services = List.copyOf(services);
        endpointSlices = List.copyOf(endpointSlices);
    }

    /** The objects as values of the policy. */
    public record Mapped(List<NodeInfo> nodes, List<ServiceInfo> services, List<EndpointSliceInfo> endpointSlices) {
    }

    /**
     * Lists what the agent's informers would watch: Services and EndpointSlices in every namespace with the watch
     * label selector, and every Node (the emulated network of {@code plan} is built from all of them).
     *
     * @throws io.fabric8.kubernetes.client.KubernetesClientException when the API server cannot be read
     */
    public static ClusterObjects list(KubernetesClient client, WatchOptions watch) {
        String selector = watch.labelSelector();
        return new ClusterObjects(client.nodes().list().getItems(),
                client.services().inAnyNamespace().withLabelSelector(selector).list().getItems(),
                client.discovery().v1().endpointSlices().inAnyNamespace().withLabelSelector(selector).list()
                        .getItems()).selected(watch);
    }

    /** The Services and EndpointSlices the proxy handles under {@code watch}; Nodes are kept. */
    public ClusterObjects selected(WatchOptions watch) {
        return new ClusterObjects(nodes, services.stream().filter(s -> watch.selects(labels(s))).toList(),
                endpointSlices.stream().filter(s -> watch.selects(labels(s))).toList());
    }

    /** Maps every object with the agent's mappers; an object that cannot be mapped is skipped with a warning. */
    public Mapped mapped(Consumer<String> warnings) {
        NodeMapper nodeMapper = new NodeMapper(warnings);
        ServiceMapper serviceMapper = new ServiceMapper(warnings);
        EndpointSliceMapper sliceMapper = new EndpointSliceMapper(warnings);
        List<NodeInfo> n = new ArrayList<>();
        nodes.forEach(node -> nodeMapper.map(node).ifPresent(n::add));
        List<ServiceInfo> s = new ArrayList<>();
        services.forEach(service -> serviceMapper.map(service).ifPresent(s::add));
        List<EndpointSliceInfo> e = new ArrayList<>();
        endpointSlices.forEach(slice -> sliceMapper.map(slice).ifPresent(e::add));
        return new Mapped(List.copyOf(n), List.copyOf(s), List.copyOf(e));
    }

    private static java.util.Map<String, String> labels(HasMetadata object) {
        return object.getMetadata() == null ? null : object.getMetadata().getLabels();
    }
}
