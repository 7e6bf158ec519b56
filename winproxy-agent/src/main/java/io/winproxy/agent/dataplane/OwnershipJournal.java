package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.winproxy.policy.desired.MacAddresses;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.Ownership;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HNS objects winproxy created or adopted (HNS objects carry no owner tag), with what winproxy wrote: per load
 * balancer the service port, the key and the {@link io.winproxy.policy.plan.Fingerprints fingerprint} of the desired
 * object it was written from; per remote endpoint its IP, provider address and MAC. This, not HNS's read-back, is what
 * the planner trusts. IDs are kept lower-case; every lookup ignores the letter case (HNS returns upper-case GUIDs).
 *
 * <p>Stored in the state directory as {@code ownership.json} (a snapshot, replaced atomically: temporary file +
 * move) plus {@code ownership.log}, an append-only log of the changes since that snapshot, one JSON object per line.
 * {@link #flush()} appends the pending changes and forces them to disk, so its cost is proportional to the change,
 * not to the journal; when the log outgrows the snapshot it is compacted into a new snapshot. Loading replays the log
 * over the snapshot (replaying twice is harmless; a torn last line from a crash is ignored). A journal that predates
 * fingerprints (version 1) loads with none: those load balancers are read once and their fingerprint recorded.
 * A journal without a directory ({@link #inMemory()}) is used by the read-only commands.
 *
 * <p>Owned objects that vanish from HNS (an HNS restart drops load balancers and remote endpoints, and HNS may later
 * rehydrate the ones it persisted, with their old IDs) are not simply forgotten: they are remembered as
 * <em>vanished</em> for {@link #VANISHED_RETENTION} (persisted like the rest), so that an ID that reappears is
 * re-adopted as owned ({@link #readoptLoadBalancer}) and a re-create of the same load balancer key or endpoint IP
 * reuses the old ID ({@link #reuseVanishedLoadBalancerId}), which HNS then refuses to duplicate.
 *
 * <p>Not thread-safe: the sync thread is its only writer.
 */
public final class OwnershipJournal {
    private static final Logger logger = LoggerFactory.getLogger(OwnershipJournal.class);
    public static final String FILE_NAME = "ownership.json";
    public static final String LOG_NAME = "ownership.log";
    private static final int MIN_COMPACTION_LINES = 4096;
    /** How long the IDs of owned objects that vanished from HNS are remembered. */
    public static final Duration VANISHED_RETENTION = Duration.ofMinutes(10);

    /**
     * What an owned load balancer serves and what winproxy wrote: the service port ("ns/name:port"), its key
     * ("vip:port/TCP"), whether it is IPv6 (the key of a VIP-less load balancer does not say), and the fingerprint
     * (null when not known: adopted by an older version, or written by a create whose completion was not recorded).
     */
    @JsonInclude(JsonInclude.Include.NON_DEFAULT)
    public record LoadBalancerEntry(@JsonProperty("service") String service, @JsonProperty("key") String key,
                                    @JsonProperty("ipv6") boolean ipv6,
                                    @JsonProperty("fingerprint") String fingerprint) {
        public LoadBalancerEntry(String service, String key) {
            this(service, key, false, null);
        }
    }

    /**
     * An owned remote endpoint as winproxy wrote it: IP, provider address (empty on l2bridge) and MAC. A MAC that is
     * the one conjured from the IP ({@link MacAddresses#conjure}, the case of every backend) is not stored: it follows
     * from the IP, and 100,000 copies of it would cost megabytes; {@link #macAddress()} still returns it.
     */
    @JsonInclude(JsonInclude.Include.NON_EMPTY)
    public record RemoteEndpointEntry(@JsonProperty("ip") String ip,
                                      @JsonProperty("providerAddress") String providerAddress,
                                      @JsonProperty("macAddress") String storedMac) {
        public RemoteEndpointEntry {
            providerAddress = providerAddress == null ? "" : providerAddress;
            storedMac = storedMac == null || storedMac.isEmpty() || storedMac.equalsIgnoreCase(conjured(ip)) ? ""
                    : storedMac;
        }

        /** The MAC winproxy wrote. */
        public String macAddress() {
            return storedMac.isEmpty() ? conjured(ip) : storedMac;
        }

        private static String conjured(String ip) {
            return ip == null || ip.isEmpty() ? "" : MacAddresses.conjure(ip);
        }

        public RemoteEndpointEntry(String ip) {
            this(ip, "", "");
        }
    }

    /**
     * An owned object that vanished from HNS at {@code at} (epoch milliseconds): the entry of a load balancer
     * ({@code lb}) or of a remote endpoint ({@code ep}).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Vanished(@JsonProperty("lb") LoadBalancerEntry lb, @JsonProperty("ep") RemoteEndpointEntry ep,
                           @JsonProperty("at") long at) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Document(@JsonProperty("version") int version,
                    @JsonProperty("loadBalancers") Map<String, LoadBalancerEntry> loadBalancers,
                    @JsonProperty("remoteEndpoints") Map<String, RemoteEndpointEntry> remoteEndpoints,
                    @JsonProperty("vanished") Map<String, Vanished> vanished) {
    }

    /**
     * One line of the change log: a put ({@code lb}/{@code ep} with the entry, {@code gone} with the vanished
     * record) or a removal (entry null).
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Change(@JsonProperty("kind") String kind, @JsonProperty("id") String id,
                  @JsonProperty("lb") LoadBalancerEntry lb, @JsonProperty("ep") RemoteEndpointEntry ep,
                  @JsonProperty("gone") Vanished gone) {
        Change(String kind, String id, LoadBalancerEntry lb, RemoteEndpointEntry ep) {
            this(kind, id, lb, ep, null);
        }
    }

    private final Path file;
    private final Path logFile;
    private final ObjectMapper mapper;
    private final ObjectMapper lineMapper;
    private final Map<String, LoadBalancerEntry> loadBalancers = new HashMap<>();
    private final Map<String, RemoteEndpointEntry> remoteEndpoints = new HashMap<>();
    /** Owned objects that vanished from HNS, by lower-case ID, with indexes by load-balancer key and endpoint IP. */
    private final Map<String, Vanished> vanished = new HashMap<>();
    private final Map<String, String> vanishedLbByKey = new HashMap<>();
    private final Map<String, String> vanishedEpByIp = new HashMap<>();
    private final Clock clock;
    private final List<Change> pending = new ArrayList<>();
    private int logLines;
    private boolean snapshotStale;

    private OwnershipJournal(Path file, Clock clock) {
        this.file = file;
        this.clock = clock;
        this.logFile = file == null ? null : file.resolveSibling(LOG_NAME);
        this.mapper = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(SerializationFeature.INDENT_OUTPUT)
                .build();
        this.lineMapper = JsonMapper.builder()
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .build();
    }

    /** A journal that is never written to disk. */
    public static OwnershipJournal inMemory() {
        return new OwnershipJournal(null, Clock.systemUTC());
    }

    /**
     * Opens the journal of a state directory (creating neither the directory nor the files until the first
     * {@link #flush()}). An unreadable snapshot is logged and treated as empty: adoption then rebuilds it.
     */
    public static OwnershipJournal open(Path stateDir) {
        return open(stateDir, Clock.systemUTC());
    }

    /** As {@link #open(Path)}, with the wall clock that dates vanished objects. */
    public static OwnershipJournal open(Path stateDir, Clock clock) {
        OwnershipJournal journal = new OwnershipJournal(stateDir.resolve(FILE_NAME), clock);
        journal.load();
        return journal;
    }

    private void load() {
        if (Files.isRegularFile(file)) {
            try {
                Document doc = mapper.readValue(file.toFile(), Document.class);
                if (doc.loadBalancers() != null) {
                    doc.loadBalancers().forEach((id, e) -> loadBalancers.put(HnsIds.normalize(id), e));
                }
                if (doc.remoteEndpoints() != null) {
                    doc.remoteEndpoints().forEach((id, e) -> remoteEndpoints.put(HnsIds.normalize(id), shared(e)));
                }
                if (doc.vanished() != null) {
                    doc.vanished().forEach((id, v) -> putVanished(HnsIds.normalize(id), v));
                }
            } catch (IOException e) {
                logger.warn("Ownership journal {} is unreadable ({}); starting empty, existing objects will be "
                        + "adopted", file, e.getMessage());
            }
        }
        if (Files.isRegularFile(logFile)) {
            try (BufferedReader reader = Files.newBufferedReader(logFile, StandardCharsets.UTF_8)) {
                String line;
                while ((line = reader.readLine()) != null) {
                    if (line.isBlank()) {
                        continue;
                    }
                    try {
                        replay(lineMapper.readValue(line, Change.class));
                        logLines++;
                    } catch (IOException e) {
                        // A crash during an append leaves a torn last line; anything after it is not trusted.
                        logger.warn("Ownership journal log {} ends with an unreadable line; ignoring it", logFile);
                        snapshotStale = true;
                        break;
                    }
                }
            } catch (IOException e) {
                logger.warn("Ownership journal log {} is unreadable ({}); objects it named will be adopted",
                        logFile, e.getMessage());
            }
        }
    }

    /** One instance per distinct provider address (a node's IP, shared by all its pods' endpoints). */
    private final Map<String, String> providerAddresses = new HashMap<>();

    private RemoteEndpointEntry shared(RemoteEndpointEntry e) {
        String pa = providerAddresses.computeIfAbsent(e.providerAddress(), k -> k);
        return pa == e.providerAddress() ? e : new RemoteEndpointEntry(e.ip(), pa, e.storedMac());
    }

    private void replay(Change change) {
        String id = HnsIds.normalize(change.id());
        if ("gone".equals(change.kind())) {
            if (change.gone() == null) {
                removeVanished(id);
            } else {
                putVanished(id, change.gone());
            }
            return;
        }
        if ("lb".equals(change.kind())) {
            if (change.lb() == null) {
                loadBalancers.remove(id);
            } else {
                loadBalancers.put(id, change.lb());
            }
        } else if ("ep".equals(change.kind())) {
            if (change.ep() == null) {
                remoteEndpoints.remove(id);
            } else {
                remoteEndpoints.put(id, shared(change.ep()));
            }
        }
    }

    /** Where the journal's snapshot lives, or empty for an in-memory journal. */
    public Optional<Path> file() {
        return Optional.ofNullable(file);
    }

    /** Records a load balancer without a fingerprint (its content is verified by reading it once). */
    public void recordLoadBalancer(String id, String service, String key) {
        recordLoadBalancer(id, new LoadBalancerEntry(service, key, false, null));
    }

    public void recordLoadBalancer(String id, LoadBalancerEntry entry) {
        String key = HnsIds.normalize(id);
        if (!entry.equals(loadBalancers.put(key, entry))) {
            pending.add(new Change("lb", key, entry, null));
        }
    }

    public void forgetLoadBalancer(String id) {
        String key = HnsIds.normalize(id);
        if (loadBalancers.remove(key) != null) {
            pending.add(new Change("lb", key, null, null));
        }
    }

    /** Records a remote endpoint with only its IP (what it was written with is unknown). */
    public void recordRemoteEndpoint(String id, String ip) {
        recordRemoteEndpoint(id, new RemoteEndpointEntry(ip));
    }

    public void recordRemoteEndpoint(String id, RemoteEndpointEntry entry) {
        String key = HnsIds.normalize(id);
        if (!entry.equals(remoteEndpoints.put(key, entry))) {
            pending.add(new Change("ep", key, null, entry));
        }
    }

    public void forgetRemoteEndpoint(String id) {
        String key = HnsIds.normalize(id);
        if (remoteEndpoints.remove(key) != null) {
            pending.add(new Change("ep", key, null, null));
        }
    }

    // ---- objects that vanished from HNS ---------------------------------------------------------------------------

    /**
     * An owned load balancer is gone from HNS (an enumerate did not list it): it is no longer owned, and its entry
     * is remembered as vanished (see the class comment). No-op when not owned.
     */
    public void vanishedLoadBalancer(String id) {
        String key = HnsIds.normalize(id);
        LoadBalancerEntry entry = loadBalancers.get(key);
        if (entry != null) {
            forgetLoadBalancer(key);
            remember(key, new Vanished(entry, null, clock.millis()));
        }
    }

    /** As {@link #vanishedLoadBalancer}, for an owned remote endpoint. */
    public void vanishedRemoteEndpoint(String id) {
        String key = HnsIds.normalize(id);
        RemoteEndpointEntry entry = remoteEndpoints.get(key);
        if (entry != null) {
            forgetRemoteEndpoint(key);
            remember(key, new Vanished(null, entry, clock.millis()));
        }
    }

    /**
     * A load balancer with the ID of one that vanished reappeared (HNS rehydrated it): it is owned again, with the
     * entry it had (its fingerprint says what winproxy wrote). False when the ID is not a vanished load balancer.
     */
    public boolean readoptLoadBalancer(String id) {
        String key = HnsIds.normalize(id);
        Vanished v = vanished.get(key);
        if (v == null || v.lb() == null) {
            return false;
        }
        unremember(key);
        recordLoadBalancer(key, v.lb());
        return true;
    }

    /** As {@link #readoptLoadBalancer}, for a remote endpoint. */
    public boolean readoptRemoteEndpoint(String id) {
        String key = HnsIds.normalize(id);
        Vanished v = vanished.get(key);
        if (v == null || v.ep() == null) {
            return false;
        }
        unremember(key);
        recordRemoteEndpoint(key, v.ep());
        return true;
    }

    /**
     * The ID of a vanished load balancer with this key ("vip:port/TCP", and family), for a create of the same load
     * balancer: no longer remembered as vanished once taken. Empty when none.
     */
    public Optional<String> reuseVanishedLoadBalancerId(String lbKey, boolean ipv6) {
        String id = vanishedLbByKey.get(lbIndexKey(lbKey, ipv6));
        if (id == null) {
            return Optional.empty();
        }
        unremember(id);
        return Optional.of(id);
    }

    /** The ID of a vanished remote endpoint with this IP, for a create of an endpoint with that IP. */
    public Optional<String> reuseVanishedRemoteEndpointId(String ip) {
        String id = vanishedEpByIp.get(ip);
        if (id == null) {
            return Optional.empty();
        }
        unremember(id);
        return Optional.of(id);
    }

    /** Forgets the vanished objects older than {@link #VANISHED_RETENTION}; returns how many. */
    public int expireVanished() {
        if (vanished.isEmpty()) {
            return 0;
        }
        long oldest = clock.millis() - VANISHED_RETENTION.toMillis();
        List<String> expired = vanished.entrySet().stream().filter(e -> e.getValue().at() < oldest)
                .map(Map.Entry::getKey).toList();
        expired.forEach(this::unremember);
        return expired.size();
    }

    /** The vanished objects by lower-case ID, sorted (a copy). */
    public Map<String, Vanished> vanished() {
        return new TreeMap<>(vanished);
    }

    private void remember(String id, Vanished v) {
        putVanished(id, v);
        pending.add(new Change("gone", id, null, null, v));
    }

    private void unremember(String id) {
        if (removeVanished(id) != null) {
            pending.add(new Change("gone", id, null, null, null));
        }
    }

    private void putVanished(String id, Vanished v) {
        removeVanished(id);
        vanished.put(id, v);
        if (v.lb() != null) {
            vanishedLbByKey.put(lbIndexKey(v.lb().key(), v.lb().ipv6()), id);
        } else if (v.ep() != null) {
            vanishedEpByIp.put(v.ep().ip(), id);
        }
    }

    private Vanished removeVanished(String id) {
        Vanished v = vanished.remove(id);
        if (v != null && v.lb() != null) {
            vanishedLbByKey.remove(lbIndexKey(v.lb().key(), v.lb().ipv6()), id);
        } else if (v != null && v.ep() != null) {
            vanishedEpByIp.remove(v.ep().ip(), id);
        }
        return v;
    }

    private static String lbIndexKey(String key, boolean ipv6) {
        return (ipv6 ? "6 " : "4 ") + key;
    }

    public boolean ownsLoadBalancer(String id) {
        return loadBalancers.containsKey(HnsIds.normalize(id));
    }

    public boolean ownsRemoteEndpoint(String id) {
        return remoteEndpoints.containsKey(HnsIds.normalize(id));
    }

    /** The entry of an owned load balancer. */
    public Optional<LoadBalancerEntry> loadBalancer(String id) {
        return Optional.ofNullable(loadBalancers.get(HnsIds.normalize(id)));
    }

    /** The entry of an owned remote endpoint. */
    public Optional<RemoteEndpointEntry> remoteEndpoint(String id) {
        return Optional.ofNullable(remoteEndpoints.get(HnsIds.normalize(id)));
    }

    /** Owned load balancers by lower-case ID, sorted (a copy). */
    public Map<String, LoadBalancerEntry> loadBalancers() {
        return new TreeMap<>(loadBalancers);
    }

    /** Owned remote endpoints by lower-case ID, sorted (a copy). */
    public Map<String, RemoteEndpointEntry> remoteEndpoints() {
        return new TreeMap<>(remoteEndpoints);
    }

    /** Calls {@code action} with every owned remote endpoint (lower-case ID), without copying the journal. */
    public void forEachRemoteEndpoint(java.util.function.BiConsumer<String, RemoteEndpointEntry> action) {
        remoteEndpoints.forEach(action);
    }

    public int loadBalancerCount() {
        return loadBalancers.size();
    }

    public int remoteEndpointCount() {
        return remoteEndpoints.size();
    }

    /** Read-only live views of the owned IDs for the plan calculator (valid while the journal is not changed). */
    public Ownership ownership() {
        return new Ownership(Collections.unmodifiableSet(loadBalancers.keySet()),
                Collections.unmodifiableSet(remoteEndpoints.keySet()));
    }

    /** Whether changes are waiting for {@link #flush()}. */
    public boolean dirty() {
        return !pending.isEmpty() || snapshotStale;
    }

    /**
     * Makes the changes since the last flush durable: appends them to the log and forces it to disk; compacts the log
     * into a new snapshot when it has grown larger than the journal. No-op for an in-memory journal or without
     * changes.
     *
     * @throws UncheckedIOException when the state directory cannot be written (the changes stay pending)
     */
    public void flush() {
        if (file == null) {
            pending.clear();
            return;
        }
        if (pending.isEmpty() && !snapshotStale) {
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            if (snapshotStale || !Files.exists(file) || logLines + pending.size() > Math.max(MIN_COMPACTION_LINES,
                    loadBalancers.size() + remoteEndpoints.size() + vanished.size())) {
                compact();
            } else {
                append();
            }
            pending.clear();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write ownership journal " + file + ": " + e.getMessage(), e);
        }
    }

    private void append() throws IOException {
        StringBuilder text = new StringBuilder();
        for (Change change : pending) {
            text.append(lineMapper.writeValueAsString(change)).append('\n');
        }
        try (FileChannel ch = FileChannel.open(logFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND)) {
            ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
            while (bytes.hasRemaining()) {
                ch.write(bytes);
            }
            ch.force(false);
        }
        logLines += pending.size();
    }

    /** Writes a new snapshot atomically, then removes the log (a crash in between replays the log harmlessly). */
    private void compact() throws IOException {
        Path tmp = Files.createTempFile(file.getParent(), FILE_NAME, ".tmp");
        try {
            mapper.writeValue(tmp.toFile(), new Document(2, new TreeMap<>(loadBalancers),
                    new TreeMap<>(remoteEndpoints), vanished.isEmpty() ? null : new TreeMap<>(vanished)));
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
        Files.deleteIfExists(logFile);
        logLines = 0;
        snapshotStale = false;
    }

}
