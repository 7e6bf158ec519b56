package io.winproxy.agent.demo;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

/**
 * The example cluster bundled in the jar under {@code example-cluster/}: three Nodes (this node {@code win-node-1},
 * another Windows node and a Linux node, in two zones) with Services and EndpointSlices covering ClusterIP, NodePort,
 * LoadBalancer with {@code externalTrafficPolicy: Local} and session affinity. The demo follows a directory, so the
 * files are copied out first.
 */
public final class ExampleCluster {
    /** The bundled files, in the order a reader should look at them. */
    public static final List<String> FILES = List.of(
            "nodes.yaml",
            "kube-dns.yaml",
            "web.yaml",
            "web-nodeport.yaml",
            "shop-loadbalancer.yaml",
            "sticky-session.yaml");

    private static final String RESOURCE_DIR = "example-cluster/";

    private ExampleCluster() {
    }

    /** The node the example cluster is seen from. */
    public static String defaultNodeName() {
        return "win-node-1";
    }

    /**
     * Copies the bundled manifests into {@code dir} (created if needed; existing files of the same name are
     * replaced, others left alone).
     *
     * @return {@code dir}
     * @throws DemoException when a file cannot be written
     */
    public static Path extractTo(Path dir) {
        try {
            Files.createDirectories(dir);
            for (String name : FILES) {
                try (InputStream in = ExampleCluster.class.getClassLoader().getResourceAsStream(RESOURCE_DIR + name)) {
                    if (in == null) {
                        throw new DemoException("bundled example file " + RESOURCE_DIR + name + " is missing");
                    }
                    Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
                }
            }
            return dir;
        } catch (IOException e) {
            throw new DemoException("cannot write the example cluster to " + dir + ": " + e.getMessage(), e);
        }
    }
}
