package io.winproxy.agent.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's cluster in one object: an {@link EmbeddedApiServer} on loopback holding the objects of a manifests
 * directory (the bundled {@link ExampleCluster} when none is given), kept in step with the directory while it runs.
 * The {@code demo} command builds this, then points the normal agent (informers, sync, HNS emulator) at
 * {@link #client()}.
 */
public final class DemoCluster implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(DemoCluster.class);

    private final EmbeddedApiServer server;
    private final ManifestSync sync;
    private final Path manifestsDir;
    private final ManifestSync.Result initial;

    private DemoCluster(EmbeddedApiServer server, ManifestSync sync, Path manifestsDir, ManifestSync.Result initial) {
        this.server = server;
        this.sync = sync;
        this.manifestsDir = manifestsDir;
        this.initial = initial;
    }

    /**
     * Starts the API server, loads the directory into it and (unless {@code follow} is false) follows edits.
     *
     * @param manifestsDir the directory to follow; null extracts the example cluster to a new temporary directory
     * @param apiPort      the loopback port of the API server; 0 picks a free one
     * @param follow       false for a one-shot load ({@code demo --once})
     * @throws DemoException when the directory is missing, the port is taken or the API server rejects an object
     */
    public static DemoCluster start(Path manifestsDir, int apiPort, boolean follow) {
        Path dir = manifestsDir != null ? manifestsDir : extractExample();
        if (!Files.isDirectory(dir)) {
            throw new DemoException("--manifests: " + dir + " is not a directory");
        }
        EmbeddedApiServer server = EmbeddedApiServer.start(apiPort);
        ManifestSync sync = new ManifestSync(server.client(), dir);
        try {
            ManifestSync.Result initial = sync.syncOnce();
            logger.atInfo().setMessage(initial.deletionsHeld() ? "Loaded objects; some files have errors and were"
                    + " skipped" : "Loaded objects").addKeyValue("count", initial.created()).addKeyValue("path", dir)
                    .log();
            if (follow) {
                sync.follow(ManifestSync.POLL_INTERVAL);
            }
            return new DemoCluster(server, sync, dir, initial);
        } catch (RuntimeException e) {
            sync.close();
            server.close();
            throw e;
        }
    }

    private static Path extractExample() {
        try {
            return ExampleCluster.extractTo(Files.createTempDirectory("winproxy-example-cluster"));
        } catch (IOException e) {
            throw new DemoException("cannot create a temporary directory for the example cluster: "
                    + e.getMessage(), e);
        }
    }

    /** A client of the embedded API server. */
    public KubernetesClient client() {
        return server.client();
    }

    public String apiUrl() {
        return server.url();
    }

    /** The directory being followed. */
    public Path manifestsDir() {
        return manifestsDir;
    }

    /** What the initial load did, including problems found in the files. */
    public ManifestSync.Result initialLoad() {
        return initial;
    }

    /** Applies the directory now (e.g. before a {@code --once} run ends); see {@link ManifestSync#syncOnce()}. */
    public ManifestSync.Result resync() {
        return sync.syncOnce();
    }

    @Override
    public void close() {
        sync.close();
        server.close();
    }
}
