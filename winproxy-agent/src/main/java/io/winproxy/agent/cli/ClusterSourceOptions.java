package io.winproxy.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.Messages;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.demo.ExampleCluster;
import io.winproxy.agent.demo.ManifestLoader;
import io.winproxy.agent.demo.ManifestProblem;
import io.winproxy.agent.demo.ManifestSet;
import io.winproxy.agent.kube.KubeClientException;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.ProxyPipeline;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where {@code plan} and {@code trace} read the cluster: the live API server, resolved as the proxy resolves it
 * ({@code --kubeconfig}, {@code --master}, the {@code --config} file's {@code clientConnection.kubeconfig}, else the
 * in-cluster service account or the default kubeconfig), or, for offline use, a manifests directory or the bundled
 * example cluster. Without any of these they refuse in one line rather than silently answer for the example.
 */
public final class ClusterSourceOptions {
    @Option(names = "--manifests", paramLabel = "DIR",
            description = "Read Nodes, Services and EndpointSlices from the YAML files in DIR instead of the API "
                    + "server (offline use).")
    Path manifests;

    @Option(names = "--example-cluster",
            description = "Use the bundled example cluster (the demo's) instead of the API server.")
    boolean exampleCluster;

    /** Where the cluster comes from, one phrase: "the manifests in DIR" or "the example cluster". */
    String describe() {
        return manifests != null ? "the manifests in " + manifests : exampleCluster ? "the example cluster"
                : "the API server";
    }

    /** True when the cluster comes from files (manifests or the example), not from the API server. */
    public boolean offline() {
        return manifests != null || exampleCluster;
    }

    /**
     * Reads the manifests (or the example cluster); problems that spoil a file are warnings, a missing directory is
     * a usage error.
     */
    ClusterObjects readFiles(CliContext context) {
        if (manifests != null && exampleCluster) {
            throw new UsageException("--example-cluster: cannot be combined with --manifests");
        }
        Path dir = manifests != null ? manifests : extractExample();
        if (!Files.isDirectory(dir)) {
            throw new UsageException("--manifests: " + dir + " is not a directory");
        }
        ManifestSet set = new ManifestLoader().load(dir);
        for (ManifestProblem problem : set.problems()) {
            if (problem.fatal()) {
                throw new UsageException("--manifests: " + problem);
            }
            context.err().println("winproxy: warning: " + problem);
        }
        return new ClusterObjects(set.nodes(), set.services(), set.endpointSlices());
    }

    /**
     * Lists the cluster from the API server the configuration names, with the proxy's watch selection.
     *
     * @throws UsageException        when no API server is configured (naming the flags, and the offline options)
     * @throws IllegalStateException when the API server cannot be read
     */
    static ClusterObjects list(ProxyConfig config, WatchOptions watch) {
        KubernetesClient client;
        try {
            client = new KubeClientFactory().create(ProxyPipeline.clientSettings(config));
        } catch (KubeClientException e) {
            throw new UsageException(e.getMessage() + "; for offline use give --manifests DIR or --example-cluster");
        }
        try (client) {
            return ClusterObjects.list(client, watch);
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("cannot read the cluster from " + client.getMasterUrl() + ": "
                    + (e.getCode() > 0 ? "HTTP " + e.getCode() + " " : "")
                    + Messages.firstLine(e.getMessage(), ""), e);
        }
    }

    private static Path extractExample() {
        try {
            return ExampleCluster.extractTo(Files.createTempDirectory("winproxy-example-cluster"));
        } catch (IOException e) {
            throw new IllegalStateException("cannot extract the example cluster: " + e.getMessage(), e);
        }
    }
}
