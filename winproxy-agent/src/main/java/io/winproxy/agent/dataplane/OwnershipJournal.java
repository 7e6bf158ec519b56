package io.winproxy.agent.dataplane;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.winproxy.agent.dataplane.JournalFile.Change;
import io.winproxy.agent.dataplane.JournalFile.Document;
import io.winproxy.policy.desired.MacAddresses;
import io.winproxy.policy.net.CompactMultimap;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.Ownership;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HNS objects winproxy created or adopted (HNS objects carry no owner tag), with what winproxy wrote: per load
 * balancer the service port, the key and the {@link io.winproxy.policy.plan.Fingerprints fingerprint} of the desired
 * object it was written from; per remote endpoint its IP, provider address and MAC. This, not HNS's read-back, is what
 * the planner trusts. IDs are kept lower-case; every lookup ignores the letter case (HNS returns upper-case GUIDs).
 *
 * <p>Stored in the state directory by {@link JournalFile} (a snapshot plus an append-only log of the changes since).
 * {@link #flush()} appends the pending changes and forces them to disk, so its cost is proportional to the change, not
 * to the journal; when the log outgrows the snapshot it is compacted into a new snapshot. Loading replays the log over
 * the snapshot; what could not be read (an unreadable snapshot, a torn line) is reported in one line and the snapshot
 * is rewritten at once from what was recovered. A journal that predates fingerprints (version 1) loads with none:
 * those load balancers are read once and their fingerprint recorded. A journal without a directory
 * ({@link #inMemory()}) is used by the read-only commands.
 *
 * <p>Write-ahead: the executor records an object before creating it and creates it only after {@link #flush()}
 * succeeded. A failed flush keeps the changes pending and marks the journal {@linkplain #writable() not writable}
 * (counted in {@link #writeErrors()}) until a flush succeeds again.
 *
 * <p>Owned objects that vanish from HNS (an HNS restart drops load balancers and remote endpoints, and HNS may later
 * rehydrate the ones it persisted, with their old IDs) are not simply forgotten: they are remembered as
 * <em>vanished</em> for {@link #VANISHED_RETENTION} (persisted like the rest), so that an ID that reappears is
 * re-adopted as owned ({@link #readoptLoadBalancer}) and a re-create of the same load balancer key or endpoint IP
 * reuses the old ID ({@link #reuseVanishedLoadBalancerId}), which HNS then refuses to duplicate.
 *
 * <p>Not thread-safe: the sync thread is its only writer.
 *
 * <p>About 600 lines by choice: the journal's whole policy (what is owned, the vanished objects and their indexes by
 * key and IP, the write-ahead flush and its failure state) is one unit that the executor and the observer share; its
 * record format is apart ({@link JournalFile}), and its entry records are nested here because the whole agent names
 * them as {@code OwnershipJournal.LoadBalancerEntry}.
 */
public final class OwnershipJournal {
    private static final Logger logger = LoggerFactory.getLogger(OwnershipJournal.class);
    public static final String FILE_NAME = JournalFile.SNAPSHOT_NAME;
    public static final String LOG_NAME = JournalFile.LOG_NAME;
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

    /** The files, or null for an in-memory journal. */
    private final JournalFile disk;
    private final Map<String, LoadBalancerEntry> loadBalancers = new HashMap<>();
    /**
     * Owned remote endpoints by lower-case ID, each kept as the observed view the planner reads
     * ({@link #remoteEndpointViews()}), which holds everything its {@link RemoteEndpointEntry} holds: at 100,000
     * endpoints one object per endpoint here, where an entry plus a view kept current beside it cost 7 MiB more.
     * In the order recorded (a linked map, not a hash-ordered one): the planner walks all views after every change,
     * and in the order they were made they lie together in memory; in hash order the same walk took a change's plan
     * and apply from 19 and 16 ms to 29-30 and 26-27 ms at 10,000 Services (docs/performance.md, third pass).
     */
    private final Map<String, ObservedEndpoint> remoteEndpoints = new LinkedHashMap<>();
    /**
     * The same views by IP, in the same order ({@link #remoteEndpointViewsAt}): what a change's plan and apply look
     * up instead of walking every view (one IP each; about 2 MiB at 100,000 endpoints).
     */
    private final CompactMultimap<String, ObservedEndpoint> viewsByIp = new CompactMultimap<>();
    /** Local endpoints winproxy created (the source-VIP endpoint HNS gave an address): never deleted, only known. */
    private final Map<String, RemoteEndpointEntry> localEndpoints = new HashMap<>();
    /** Owned objects that vanished from HNS, by lower-case ID, with indexes by load-balancer key and endpoint IP. */
    private final Map<String, Vanished> vanished = new HashMap<>();
    private final Map<String, String> vanishedLbByKey = new HashMap<>();
    private final Map<String, String> vanishedEpByIp = new HashMap<>();
    private final Clock clock;
    private final List<Change> pending = new ArrayList<>();
    private final Set<String> recordedLbs = new LinkedHashSet<>();
    /** Counts changes of the owned remote endpoints, so that readers can tell cheaply whether they changed. */
    private long remoteEndpointsVersion;
    private final Set<String> recordedEps = new LinkedHashSet<>();
    private int logLines;
    private boolean snapshotStale;
    private boolean writable = true;
    private boolean readOnly;
    private long writeErrors;

    private OwnershipJournal(JournalFile disk, Clock clock) {
        this.disk = disk;
        this.clock = clock;
    }

    /** A journal that is never written to disk. */
    public static OwnershipJournal inMemory() {
        return new OwnershipJournal(null, Clock.systemUTC());
    }

    /**
     * Opens the journal of a state directory (creating neither the directory nor the files until the first
     * {@link #flush()}, unless what is there is damaged). What cannot be read is logged in one line and the snapshot
     * is rewritten from what was recovered; objects it named are adopted again.
     */
    public static OwnershipJournal open(Path stateDir) {
        return open(stateDir, Clock.systemUTC());
    }

    /**
     * The journal of a state directory as it is, for tools that only read (plan, trace, hns list): nothing is repaired
     * or written, and {@link #flush()} discards changes. A running agent may hold the directory.
     */
    public static OwnershipJournal readOnly(Path stateDir) {
        OwnershipJournal journal = new OwnershipJournal(new JournalFile(stateDir), Clock.systemUTC());
        journal.readOnly = true;
        journal.load();
        return journal;
    }

    /** As {@link #open(Path)}, with the wall clock that dates vanished objects. */
    public static OwnershipJournal open(Path stateDir, Clock clock) {
        OwnershipJournal journal = new OwnershipJournal(new JournalFile(stateDir), clock);
        journal.load();
        return journal;
    }

    private void load() {
        JournalFile.Recovery recovery = disk.load(new JournalFile.Entries() {
            @Override
            public void loadBalancer(String id, LoadBalancerEntry entry) {
                loadBalancers.put(HnsIds.normalize(id), entry);
            }

            @Override
            public void remoteEndpoint(String id, RemoteEndpointEntry entry) {
                String key = HnsIds.normalize(id);
                putView(key, view(key, entry));
            }

            @Override
            public void vanished(String id, Vanished vanished) {
                putVanished(HnsIds.normalize(id), vanished);
            }

            @Override
            public void localEndpoint(String id, RemoteEndpointEntry entry) {
                localEndpoints.put(HnsIds.normalize(id), entry);
            }
        }, this::replay);
        logLines = recovery.lines();
        if (!recovery.damaged() || readOnly) {
            return;
        }
        logger.warn("Ownership journal {} was damaged ({}); kept what could be read ({} load balancers, {} remote "
                + "endpoints) and rewriting it; objects it lost are adopted again", disk.snapshot(),
                recovery.snapshotError() != null ? "snapshot unreadable: " + recovery.snapshotError()
                        : recovery.unreadableLines() + " unreadable log line(s)",
                loadBalancers.size(), remoteEndpoints.size());
        snapshotStale = true;
        try {
            flush();
        } catch (UncheckedIOException e) {
            // flush logged and counted it; the next flush tries again
        }
    }

    /** One instance per distinct provider address (a node's IP, shared by all its pods' endpoints). */
    private final Map<String, String> providerAddresses = new HashMap<>();

    /**
     * An owned remote endpoint as the journal describes it (what winproxy wrote), with the one instance of its provider
     * address. A MAC conjured from the IP is left empty (unknown): a backend's desired MAC is always that one, so there
     * is nothing to compare.
     */
    private ObservedEndpoint view(String key, RemoteEndpointEntry e) {
        String pa = providerAddresses.computeIfAbsent(e.providerAddress(), k -> k);
        return new ObservedEndpoint(key, List.of(e.ip()), true, pa, e.storedMac());
    }

    /**
     * Keeps a view under its ID and its IP. A view replacing one at the same IP keeps that one's place; one at another
     * IP goes to the end of both orders, so that the views at an IP stay in the order of all views.
     */
    private void putView(String key, ObservedEndpoint view) {
        ObservedEndpoint old = remoteEndpoints.get(key);
        if (old != null && old.ips().equals(view.ips())) {
            remoteEndpoints.put(key, view);
            viewsByIp.replace(view.ips().get(0), v -> v.id().equals(key), view);
            return;
        }
        if (old != null) {
            removeView(key);
        }
        remoteEndpoints.put(key, view);
        viewsByIp.add(view.ips().get(0), view);
    }

    private ObservedEndpoint removeView(String key) {
        ObservedEndpoint old = remoteEndpoints.remove(key);
        if (old != null) {
            viewsByIp.removeIf(old.ips().get(0), v -> v.id().equals(key));
        }
        return old;
    }

    /** The entry a view was made from. */
    private static RemoteEndpointEntry entry(ObservedEndpoint view) {
        return new RemoteEndpointEntry(view.ips().get(0), view.providerAddress(), view.macAddress());
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
                removeView(id);
            } else {
                putView(id, view(id, change.ep()));
            }
        } else if ("local".equals(change.kind())) {
            if (change.ep() == null) {
                localEndpoints.remove(id);
            } else {
                localEndpoints.put(id, change.ep());
            }
        }
    }

    /**
     * Records a local endpoint winproxy created (the source-VIP endpoint HNS assigns an address to; {@code ip} "" while
     * not known). Local endpoints are never deleted; the record says whose it is and which address HNS gave.
     */
    public void recordLocalEndpoint(String id, String ip) {
        String key = HnsIds.normalize(id);
        RemoteEndpointEntry entry = new RemoteEndpointEntry(ip == null ? "" : ip);
        if (!entry.equals(localEndpoints.put(key, entry))) {
            pending.add(new Change("local", key, null, entry, null));
        }
    }

    public void forgetLocalEndpoint(String id) {
        String key = HnsIds.normalize(id);
        if (localEndpoints.remove(key) != null) {
            pending.add(new Change("local", key, null, null, null));
        }
    }

    /** The local endpoints winproxy created, by ID (unmodifiable). */
    public Map<String, RemoteEndpointEntry> localEndpoints() {
        return java.util.Collections.unmodifiableMap(localEndpoints);
    }

    /** Where the journal's snapshot lives, or empty for an in-memory journal. */
    public Optional<Path> file() {
        return disk == null ? Optional.empty() : Optional.of(disk.snapshot());
    }

    /** False after a flush failed, until one succeeds: creates must wait (write-ahead). */
    public boolean writable() {
        return writable;
    }

    /** How many flushes failed since the journal was opened. */
    public long writeErrors() {
        return writeErrors;
    }

    /** Records a load balancer without a fingerprint (its content is verified by reading it once). */
    public void recordLoadBalancer(String id, String service, String key) {
        recordLoadBalancer(id, new LoadBalancerEntry(service, key, false, null));
    }

    public void recordLoadBalancer(String id, LoadBalancerEntry entry) {
        String key = HnsIds.normalize(id);
        if (!entry.equals(loadBalancers.put(key, entry))) {
            pending.add(new Change("lb", key, entry, null, null));
            recordedLbs.add(key);
        }
    }

    public void forgetLoadBalancer(String id) {
        String key = HnsIds.normalize(id);
        if (loadBalancers.remove(key) != null) {
            pending.add(new Change("lb", key, null, null, null));
        }
    }

    /** Records a remote endpoint with only its IP (what it was written with is unknown). */
    public void recordRemoteEndpoint(String id, String ip) {
        recordRemoteEndpoint(id, new RemoteEndpointEntry(ip));
    }

    public void recordRemoteEndpoint(String id, RemoteEndpointEntry entry) {
        String key = HnsIds.normalize(id);
        ObservedEndpoint old = remoteEndpoints.get(key);
        if (old == null || !entry.equals(entry(old))) {
            putView(key, view(key, entry));
            pending.add(new Change("ep", key, null, entry, null));
            recordedEps.add(key);
            remoteEndpointsVersion++;
        }
    }

    /**
     * The object's outcome is known (winproxy created or modified it, and HNS answered): an observe need not check it
     * as a recorded one, since an enumerate that misses it reports it vanished. After a first sync that created 100,000
     * objects, the next observe would otherwise look each one up.
     */
    public void settled(String id) {
        String key = HnsIds.normalize(id);
        recordedLbs.remove(key);
        recordedEps.remove(key);
    }

    /**
     * The load balancers recorded since the last call (lower-case IDs): what an observe must check against HNS
     * besides what an enumerate saw vanish (a reservation whose create never happened, for one).
     */
    public List<String> drainRecordedLoadBalancers() {
        return drain(recordedLbs);
    }

    /** As {@link #drainRecordedLoadBalancers()}, for remote endpoints. */
    public List<String> drainRecordedRemoteEndpoints() {
        return drain(recordedEps);
    }

    /** The IDs in {@code ids}, in order, which it no longer holds (also {@link HostCache}'s drains). */
    static List<String> drain(Collection<String> ids) {
        if (ids.isEmpty()) {
            return List.of();
        }
        List<String> out = List.copyOf(ids);
        ids.clear();
        return out;
    }

    public void forgetRemoteEndpoint(String id) {
        String key = HnsIds.normalize(id);
        if (removeView(key) != null) {
            pending.add(new Change("ep", key, null, null, null));
            remoteEndpointsVersion++;
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
        ObservedEndpoint view = remoteEndpoints.get(key);
        if (view != null) {
            forgetRemoteEndpoint(key);
            remember(key, new Vanished(null, entry(view), clock.millis()));
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
        return Optional.ofNullable(remoteEndpoints.get(HnsIds.normalize(id))).map(OwnershipJournal::entry);
    }

    /** An owned remote endpoint as {@link #remoteEndpointViews()} presents it. */
    public Optional<ObservedEndpoint> remoteEndpointView(String id) {
        return Optional.ofNullable(remoteEndpoints.get(HnsIds.normalize(id)));
    }

    /** Owned load balancers by lower-case ID, sorted (a copy). */
    public Map<String, LoadBalancerEntry> loadBalancers() {
        return new TreeMap<>(loadBalancers);
    }

    /** Owned remote endpoints by lower-case ID, sorted (a copy). */
    public Map<String, RemoteEndpointEntry> remoteEndpoints() {
        Map<String, RemoteEndpointEntry> out = new TreeMap<>();
        remoteEndpoints.forEach((id, view) -> out.put(id, entry(view)));
        return out;
    }

    /**
     * The owned remote endpoints as the observer presents them to the planner (ID lower-case, remote, the provider
     * address and the MAC winproxy wrote, empty when it is the one conjured from the IP): a live, unmodifiable view,
     * valid while the journal is not changed ({@link #remoteEndpointsVersion()} tells when it was).
     */
    public Collection<ObservedEndpoint> remoteEndpointViews() {
        return Collections.unmodifiableCollection(remoteEndpoints.values());
    }

    /**
     * The views of {@link #remoteEndpointViews()} that hold {@code ip}, in their order there (read-only; valid while
     * the journal is not changed).
     */
    public List<ObservedEndpoint> remoteEndpointViewsAt(String ip) {
        return viewsByIp.get(ip);
    }

    /** Changes whenever an owned remote endpoint is recorded or forgotten. */
    public long remoteEndpointsVersion() {
        return remoteEndpointsVersion;
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
        if (disk == null || readOnly) {
            pending.clear();
            return;
        }
        if (pending.isEmpty() && !snapshotStale) {
            return;
        }
        try {
            if (snapshotStale || !disk.snapshotExists() || logLines + pending.size() > Math.max(MIN_COMPACTION_LINES,
                    loadBalancers.size() + remoteEndpoints.size() + vanished.size())) {
                disk.compact(new Document(2, new TreeMap<>(loadBalancers), remoteEndpoints(),
                        vanished.isEmpty() ? null : new TreeMap<>(vanished),
                        localEndpoints.isEmpty() ? null : new TreeMap<>(localEndpoints)));
                logLines = 0;
                snapshotStale = false;
            } else {
                disk.append(pending);
                logLines += pending.size();
            }
            pending.clear();
            if (!writable) {
                logger.info("Ownership journal {} is writable again", disk.snapshot());
            }
            writable = true;
        } catch (IOException e) {
            writeErrors++;
            if (writable) {
                logger.error("Cannot write ownership journal {}: {}; no HNS object is created until it can be",
                        disk.snapshot(), e.getMessage());
            }
            writable = false;
            throw new UncheckedIOException("cannot write ownership journal " + disk.snapshot() + ": "
                    + e.getMessage(), e);
        }
    }
}
