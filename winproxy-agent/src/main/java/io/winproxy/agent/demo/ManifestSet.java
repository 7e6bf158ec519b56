package io.winproxy.agent.demo;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The objects read from a manifests directory. Namespaced objects without a namespace are in {@code default}.
 * Objects of files listed in {@link #failedFiles()} are absent: such a file is used whole or not at all.
 */
public record ManifestSet(List<Node> nodes, List<Service> services, List<EndpointSlice> endpointSlices,
                          List<ManifestProblem> problems, Set<Path> failedFiles) {
    public ManifestSet {
        nodes = List.copyOf(nodes);
        services = List.copyOf(services);
        endpointSlices = List.copyOf(endpointSlices);
        problems = List.copyOf(problems);
        failedFiles = Set.copyOf(failedFiles);
    }

    /** True when every file could be used. */
    public boolean complete() {
        return failedFiles.isEmpty();
    }

    /** All objects: Nodes, then Services, then EndpointSlices. */
    public List<HasMetadata> all() {
        List<HasMetadata> all = new ArrayList<>(nodes);
        all.addAll(services);
        all.addAll(endpointSlices);
        return all;
    }
}
