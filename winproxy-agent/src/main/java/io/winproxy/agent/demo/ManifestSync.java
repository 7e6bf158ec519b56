package io.winproxy.agent.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.DaemonThreads;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes an API server's Nodes, Services and EndpointSlices match a manifests directory: creates what is missing,
 * updates what differs (labels, annotations, spec, status, slice endpoints and ports), deletes what the directory
 * no longer has. Objects are matched by kind, namespace and name. While any file cannot be read, deletions are
 * held back, so a half-saved edit never removes objects; creates and updates from the good files still happen.
 *
 * <p>{@link #follow(Duration)} re-syncs whenever the directory's content changes. It polls (default every second)
 * rather than using {@code WatchService}: polling sees edits on every platform and file system the demo runs on
 * (bind mounts, network shares, editors that save by rename, macOS where WatchService itself polls every 10 s),
 * and comparing file contents catches edits within the file system's timestamp granularity. Reading a few
 * manifest files a second costs nothing.
 *
 * <p>Thread-safe: syncs are serialized.
 */
public final class ManifestSync implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ManifestSync.class);

    /** The default follow interval. */
    public static final Duration POLL_INTERVAL = Duration.ofSeconds(1);

    private final KubernetesClient client;
    private final Path dir;
    private final ManifestLoader loader;
    private final ObjectMapper json = new ObjectMapper();
    private final Object syncLock = new Object();
    private ScheduledExecutorService follower;
    private DirectoryFingerprint lastSynced;
    /** The message of the last failed poll, so that a lasting failure is logged once. Follower thread only. */
    private String lastFailure;

    public ManifestSync(KubernetesClient client, Path dir) {
        this(client, dir, new ManifestLoader());
    }

    public ManifestSync(KubernetesClient client, Path dir, ManifestLoader loader) {
        this.client = client;
        this.dir = dir;
        this.loader = loader;
    }

    /** What one sync changed. */
    public record Result(int created, int updated, int deleted, List<ManifestProblem> problems,
                         boolean deletionsHeld) {
        public Result {
            problems = List.copyOf(problems);
        }

        public boolean changedAnything() {
            return created + updated + deleted > 0;
        }
    }

    /**
     * Reads the directory and applies it once.
     *
     * @throws DemoException when the directory is missing or the API server rejects a change
     */
    public Result syncOnce() {
        synchronized (syncLock) {
            DirectoryFingerprint fingerprint = DirectoryFingerprint.of(dir);
            Result result = apply(loader.load(dir));
            lastSynced = fingerprint;
            return result;
        }
    }

    /** Starts re-syncing whenever the directory's content changes, checking every {@code interval}. */
    public synchronized void follow(Duration interval) {
        if (follower != null) {
            throw new IllegalStateException("already following " + dir);
        }
        follower = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("manifest-follower"));
        follower.scheduleWithFixedDelay(this::pollOnce, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        logger.atInfo().setMessage("Following the manifests for changes").addKeyValue("path", dir)
                .addKeyValue("every", interval.toMillis() + "ms").log();
    }

    /** One poll: syncs if the directory changed since the last successful sync. Never throws. */
    void pollOnce() {
        try {
            synchronized (syncLock) {
                DirectoryFingerprint now = DirectoryFingerprint.of(dir);
                if (now.equals(lastSynced)) {
                    return;
                }
                Result result = apply(loader.load(dir));
                lastSynced = now;
                if (result.changedAnything()) {
                    logger.atInfo().setMessage(result.deletionsHeld() ? "Manifests changed; deletions held back"
                            + " until every file is valid" : "Manifests changed")
                            .addKeyValue("created", result.created()).addKeyValue("updated", result.updated())
                            .addKeyValue("deleted", result.deleted()).log();
                }
            }
            lastFailure = null;
        } catch (RuntimeException e) {
            String message = String.valueOf(e.getMessage());
            if (!message.equals(lastFailure)) {
                logger.atWarn().setMessage("Applying the manifests failed, will retry every poll")
                        .addKeyValue("path", dir).addKeyValue("err", message).log();
                lastFailure = message;
            }
        }
    }

    @Override
    public synchronized void close() {
        if (follower != null) {
            follower.shutdownNow();
            follower = null;
        }
    }

    private Result apply(ManifestSet manifests) {
        for (ManifestProblem problem : manifests.problems()) {
            if (problem.fatal()) {
                logger.error("{}", problem);
            } else {
                logger.warn("{}", problem);
            }
        }
        Counts counts = new Counts();
        boolean holdDeletes = !manifests.complete();
        apply(manifests.nodes(), client.nodes().list().getItems(), holdDeletes, counts);
        apply(manifests.services(), client.services().inAnyNamespace().list().getItems(), holdDeletes, counts);
        apply(manifests.endpointSlices(),
                client.discovery().v1().endpointSlices().inAnyNamespace().list().getItems(), holdDeletes, counts);
        return new Result(counts.created, counts.updated, counts.deleted, manifests.problems(), holdDeletes);
    }

    private <T extends HasMetadata> void apply(List<T> desired, List<T> actual, boolean holdDeletes, Counts counts) {
        Map<String, T> existing = new LinkedHashMap<>();
        for (T object : actual) {
            existing.put(ManifestLoader.identity(object), object);
        }
        for (T wanted : desired) {
            String id = ManifestLoader.identity(wanted);
            T current = existing.remove(id);
            try {
                if (current == null) {
                    create(wanted);
                    counts.created++;
                    logger.atDebug().setMessage("Created").addKeyValue("object", id).log();
                } else if (!comparable(wanted).equals(comparable(current))) {
                    update(wanted, current);
                    counts.updated++;
                    logger.atDebug().setMessage("Updated").addKeyValue("object", id).log();
                }
            } catch (KubernetesClientException e) {
                throw new DemoException("API server rejected " + id + ": " + e.getMessage(), e);
            }
        }
        if (holdDeletes) {
            return;
        }
        for (Map.Entry<String, T> extra : existing.entrySet()) {
            client.resource(extra.getValue()).delete();
            counts.deleted++;
            logger.atDebug().setMessage("Deleted").addKeyValue("object", extra.getKey()).log();
        }
    }

    private <T extends HasMetadata> void create(T wanted) {
        T copy = client.getKubernetesSerialization().clone(wanted);
        copy.getMetadata().setResourceVersion(null);
        copy.getMetadata().setUid(null);
        T created = client.resource(copy).create();
        if (!statusOf(wanted).equals(statusOf(created))) {
            copy.getMetadata().setResourceVersion(created.getMetadata().getResourceVersion());
            client.resource(copy).updateStatus();
        }
    }

    private <T extends HasMetadata> void update(T wanted, T current) {
        T copy = client.getKubernetesSerialization().clone(wanted);
        copy.getMetadata().setUid(current.getMetadata().getUid());
        copy.getMetadata().setResourceVersion(current.getMetadata().getResourceVersion());
        T updated = client.resource(copy).update();
        if (!statusOf(wanted).equals(statusOf(updated))) {
            copy.getMetadata().setResourceVersion(updated.getMetadata().getResourceVersion());
            client.resource(copy).updateStatus();
        }
    }

    private JsonNode statusOf(HasMetadata object) {
        JsonNode status = comparable(object).path("status");
        return status.isMissingNode() ? json.createObjectNode() : status;
    }

    /** The object as JSON without server-managed metadata and without empty values. */
    private JsonNode comparable(HasMetadata object) {
        ObjectNode tree;
        try {
            tree = (ObjectNode) json.readTree(client.getKubernetesSerialization().asJson(object));
        } catch (IOException e) {
            throw new IllegalStateException("cannot re-read a serialized " + object.getKind(), e);
        }
        JsonNode meta = tree.path("metadata");
        ObjectNode kept = json.createObjectNode();
        for (String field : List.of("name", "namespace", "labels", "annotations")) {
            if (meta.hasNonNull(field)) {
                kept.set(field, meta.get(field));
            }
        }
        tree.set("metadata", kept);
        return JsonTrees.withoutEmpty(tree);
    }

    private static final class Counts {
        int created;
        int updated;
        int deleted;
    }
}
