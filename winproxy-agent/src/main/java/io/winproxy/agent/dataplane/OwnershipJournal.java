package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.winproxy.policy.plan.Ownership;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The IDs of the HNS objects winproxy created or adopted (HNS objects carry no owner tag), with what they serve.
 * Stored as {@code ownership.json} in the state directory, written atomically (temporary file + move) by
 * {@link #flush()} so that a crash leaves either the old or the new file. A journal without a directory
 * ({@link #inMemory()}) is used by the read-only commands.
 *
 * <p>Not thread-safe: the sync thread is its only writer.
 */
public final class OwnershipJournal {
    private static final Logger logger = LoggerFactory.getLogger(OwnershipJournal.class);
    public static final String FILE_NAME = "ownership.json";

    /** What an owned load balancer serves: the service port ("ns/name:port") and its key ("vip:port/TCP"). */
    public record LoadBalancerEntry(@JsonProperty("service") String service, @JsonProperty("key") String key) {
    }

    /** An owned remote endpoint: its IP. */
    public record RemoteEndpointEntry(@JsonProperty("ip") String ip) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Document(@JsonProperty("version") int version,
                    @JsonProperty("loadBalancers") Map<String, LoadBalancerEntry> loadBalancers,
                    @JsonProperty("remoteEndpoints") Map<String, RemoteEndpointEntry> remoteEndpoints) {
    }

    private final Path file;
    private final ObjectMapper mapper;
    private final Map<String, LoadBalancerEntry> loadBalancers = new TreeMap<>();
    private final Map<String, RemoteEndpointEntry> remoteEndpoints = new TreeMap<>();
    private boolean dirty;

    private OwnershipJournal(Path file) {
        this.file = file;
        this.mapper = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .build();
    }

    /** A journal that is never written to disk. */
    public static OwnershipJournal inMemory() {
        return new OwnershipJournal(null);
    }

    /**
     * Opens the journal of a state directory (creating neither the directory nor the file until the first
     * {@link #flush()}). An unreadable journal is logged and treated as empty: adoption then rebuilds it.
     */
    public static OwnershipJournal open(Path stateDir) {
        OwnershipJournal journal = new OwnershipJournal(stateDir.resolve(FILE_NAME));
        journal.load();
        return journal;
    }

    private void load() {
        if (!Files.isRegularFile(file)) {
            return;
        }
        try {
            Document doc = mapper.readValue(file.toFile(), Document.class);
            if (doc.loadBalancers() != null) {
                loadBalancers.putAll(doc.loadBalancers());
            }
            if (doc.remoteEndpoints() != null) {
                remoteEndpoints.putAll(doc.remoteEndpoints());
            }
        } catch (IOException e) {
            logger.warn("Ownership journal {} is unreadable ({}); starting empty, existing objects will be adopted",
                    file, e.getMessage());
        }
    }

    /** Where the journal lives, or empty for an in-memory journal. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    public void recordLoadBalancer(String id, String service, String key) {
        LoadBalancerEntry entry = new LoadBalancerEntry(service, key);
        if (!entry.equals(loadBalancers.put(id, entry))) {
            dirty = true;
        }
    }

    public void forgetLoadBalancer(String id) {
        if (loadBalancers.remove(id) != null) {
            dirty = true;
        }
    }

    public void recordRemoteEndpoint(String id, String ip) {
        RemoteEndpointEntry entry = new RemoteEndpointEntry(ip);
        if (!entry.equals(remoteEndpoints.put(id, entry))) {
            dirty = true;
        }
    }

    public void forgetRemoteEndpoint(String id) {
        if (remoteEndpoints.remove(id) != null) {
            dirty = true;
        }
    }

    public boolean ownsLoadBalancer(String id) {
        return loadBalancers.containsKey(id);
    }

    public boolean ownsRemoteEndpoint(String id) {
        return remoteEndpoints.containsKey(id);
    }

    /** The entry of an owned load balancer (the service port it serves). */
    public Optional<LoadBalancerEntry> loadBalancer(String id) {
        return Optional.ofNullable(loadBalancers.get(id));
    }

    /** Owned load balancers by ID, sorted. */
    public Map<String, LoadBalancerEntry> loadBalancers() {
        return Map.copyOf(loadBalancers);
    }

    /** Owned remote endpoints by ID. */
    public Map<String, RemoteEndpointEntry> remoteEndpoints() {
        return Map.copyOf(remoteEndpoints);
    }

    /** A snapshot for the plan calculator. */
    public Ownership ownership() {
        return new Ownership(loadBalancers.keySet(), remoteEndpoints.keySet());
    }

    /**
     * Writes the journal if it changed since the last flush: to a temporary file in the same directory, then an
     * atomic move over the old one.
     *
     * @throws UncheckedIOException when the state directory cannot be written
     */
    public void flush() {
        if (!dirty || file == null) {
            dirty = false;
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            Path tmp = Files.createTempFile(file.getParent(), FILE_NAME, ".tmp");
            try {
                mapper.writeValue(tmp.toFile(), new Document(1, loadBalancers, remoteEndpoints));
                try {
                    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                } catch (AtomicMoveNotSupportedException e) {
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
            dirty = false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write ownership journal " + file + ": " + e.getMessage(), e);
        }
    }
}
