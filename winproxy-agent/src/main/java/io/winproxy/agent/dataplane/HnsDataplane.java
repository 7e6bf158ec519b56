package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.IncrementalPlanner;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter between the policy vocabulary and HNS. {@link #observe} reads the host cheaply and {@link #apply}
 * executes a plan ({@link PlanExecutor}).
 *
 * <p>What a sync costs, in native HCN calls: the network by name (one enumerate, one document read, which carries
 * the remote-subnet routes), the IDs of its endpoints (one enumerate) and of every load balancer (one enumerate).
 * Owned objects are described by the {@link OwnershipJournal} (what winproxy wrote), never re-read; documents are read
 * only for IDs not seen before (the CNI's local endpoints, objects winproxy does not own, objects to adopt) and kept
 * by ID, since HNS objects change only through a modify. A vanished ID is forgotten, and an owned one is re-created
 * if still desired; its ID is remembered for a while, so that an object HNS restores after its restart (with the old
 * ID) is re-adopted as owned, and a re-create reuses the ID. Content drift of owned objects is checked on a rolling budget ({@link DriftSampler}), only in
 * syncs that ask for it (the periodic resync), comparing only what HNS is documented to return.
 *
 * <p>Guarantees of {@link #apply}: a failing step never stops the others (it is reported and its object backs off);
 * HNS errors are classified by HRESULT; local endpoints are never deleted; new objects get IDs chosen by winproxy,
 * recorded in the journal (and flushed) before they are created, so a crash leaks nothing.
 *
 * <p>Not thread-safe: one sync thread calls {@code observe} then {@code apply}.
 */
public final class HnsDataplane {
    private static final Logger logger = LoggerFactory.getLogger(HnsDataplane.class);
    /** The name of the local endpoint winproxy creates for {@code --source-vip} when the host has none. */
    public static final String SOURCE_VIP_ENDPOINT_NAME = "winproxy-source-vip";

    private final HnsClient hns;
    private final String networkName;
    private final OwnershipJournal journal;
    private final DriftSampler drift;
    private final PlanExecutor executor;
    private final LongSupplier nanoTime;

    private HostComputeNetwork network;
    /**
     * The endpoints winproxy does not own, by lower-case ID, as read once (in the order first seen). Owned remote
     * endpoints are not kept here: the journal describes them, and each observe derives their view from it.
     */
    private final Map<String, ObservedEndpoint> endpoints = new LinkedHashMap<>();
    /** Every endpoint as the last {@link #observe} saw it (read ones, then owned ones), until {@link #apply}. */
    private List<ObservedEndpoint> lastObserved = List.of();
    /**
     * The same list instance until the local endpoints change, so that the node network built from it is rebuilt
     * only then (see {@code VfpPolicyEngine}).
     */
    private List<HostComputeEndpoint> endpointDocsView;
    /** The documents read of local endpoints (the CNI's, the source VIP's). */
    private final Map<String, HostComputeEndpoint> endpointDocs = new LinkedHashMap<>();
    /** The documents read of load balancers not described by a journal fingerprint. */
    private final Map<String, HostComputeLoadBalancer> lbDocs = new HashMap<>();
    /** Owned load balancers as the journal describes them, by lower-case ID. */
    private final Map<String, ObservedLoadBalancer> journaled = new HashMap<>();
    private List<String> lbIds = List.of();
    private final Map<String, String> providerAddresses = new HashMap<>();
    /** What the last observe saw change on the host (see {@link #hostChanges()}). */
    private Set<LoadBalancerKey> changedKeys = new HashSet<>();
    private Set<String> changedIps = new HashSet<>();
    private boolean changedEverything = true;
    /** Whether the owned endpoints of the journal were put into the drift rotation (by the first observe). */
    private boolean driftSeeded;

    /**
     * A dataplane with the default drift budget and random IDs.
     *
     * @param syncPeriod unused beyond the backoff cap (kept for callers)
     * @param nanoTime   the monotonic clock ({@code System::nanoTime} in production)
     */
    public HnsDataplane(HnsClient hns, String networkName, OwnershipJournal journal, Duration syncPeriod,
                        LongSupplier nanoTime) {
        this(hns, networkName, journal, syncPeriod, nanoTime, DriftBudget.DEFAULT, () -> HnsIds.newId(ThreadLocalRandom.current()));
    }

    /**
     * @param drift the budget of content-drift reads
     * @param newId the IDs given to new HNS objects (GUIDs)
     */
    public HnsDataplane(HnsClient hns, String networkName, OwnershipJournal journal, Duration syncPeriod,
                        LongSupplier nanoTime, DriftBudget drift, Supplier<String> newId) {
        this.hns = hns;
        this.networkName = networkName;
        this.journal = journal;
        this.drift = new DriftSampler(drift.period(), drift.readsPerSync(), nanoTime);
        this.nanoTime = nanoTime;
        this.executor = new PlanExecutor(hns, journal, new ObjectBackoff(Duration.ofSeconds(1),
                maxBackoff(syncPeriod), nanoTime), newId, hns.capabilities().modifyLoadBalancer(), this);
    }

    private static Duration maxBackoff(Duration syncPeriod) {
        Duration cap = Duration.ofMinutes(2);
        return syncPeriod.compareTo(cap) > 0 ? syncPeriod : cap;
    }

    /** False once a modify failed or misbehaved (or HNS never supported it); plans then replace. */
    public boolean modifySupported() {
        return executor.modifySupported();
    }

    /** The network seen by the last {@link #observe}. */
    public Optional<HostComputeNetwork> network() {
        return Optional.ofNullable(network);
    }

    /**
     * The documents of the network's local endpoints (the CNI's, and the source-VIP endpoint), as read once and kept
     * by ID. Remote endpoints are described by the journal (owned ones) or by what was read of them.
     */
    public List<HostComputeEndpoint> endpoints() {
        if (endpointDocsView == null) {
            endpointDocsView = List.copyOf(endpointDocs.values());
        }
        return endpointDocsView;
    }

    public OwnershipJournal journal() {
        return journal;
    }

    /** As {@link #observe(boolean)} without drift checks. */
    public ObservedState observe() {
        return observe(false);
    }

    /**
     * Reads the host: the network by name, the IDs of its endpoints and of every load balancer, and the documents
     * of IDs not seen before. A network whose ID changed since the last call (recreated, or HNS restarted) drops
     * every cached document. Journal entries of objects that no longer exist are forgotten.
     *
     * @param driftCheck spend the drift budget in this sync (the periodic resync does; syncs for changes do not)
     * @throws HnsNetworkNotFoundException when the network does not exist
     * @throws HnsException                when HNS cannot be read
     */
    public ObservedState observe(boolean driftCheck) {
        HostComputeNetwork current = hns.getNetworkByName(networkName)
                .orElseThrow(() -> new HnsNetworkNotFoundException(networkName));
        changedKeys = new HashSet<>();
        changedIps = new HashSet<>();
        changedEverything = network == null;
        if (network != null && !network.id().equalsIgnoreCase(current.id())) {
            logger.warn("HNS network {} was recreated (ID {} -> {}); re-reading and re-programming everything",
                    networkName, network.id(), current.id());
            endpoints.clear();
            endpointDocs.clear();
            endpointDocsView = null;
            lbDocs.clear();
            changedEverything = true;
        }
        if (network == null || !sameRouting(network, current)) {
            // New remote-subnet routes or a new provider address change the desired state as a whole.
            changedEverything = true;
        }
        network = current;
        journal.expireVanished();
        observeEndpoints(current);
        observeLoadBalancers();

        Map<String, ObservedLoadBalancer> drifted = new HashMap<>();
        Map<String, ObservedEndpoint> driftedEndpoints = new HashMap<>();
        for (String id : drift.next(driftCheck, id -> journal.ownsLoadBalancer(id)
                || journal.ownsRemoteEndpoint(id))) {
            readForDrift(id, drifted, driftedEndpoints);
        }

        List<ObservedEndpoint> observedEndpoints = new ArrayList<>(endpoints.size()
                + journal.remoteEndpointCount());
        observedEndpoints.addAll(endpoints.values());
        journal.forEachRemoteEndpoint((id, entry) -> {
            ObservedEndpoint read = driftedEndpoints.get(id);
            observedEndpoints.add(read != null ? read : HcnTranslator.toObserved(id, entry));
        });
        lastObserved = observedEndpoints;
        List<ObservedLoadBalancer> observedLbs = new ArrayList<>(lbIds.size());
        for (String id : lbIds) {
            ObservedLoadBalancer known = drifted.get(id);
            if (known == null) {
                known = journaled.get(id);
            }
            if (known == null) {
                HostComputeLoadBalancer doc = lbDocs.get(id);
                if (doc == null) {
                    continue;
                }
                known = HcnTranslator.toObserved(doc, this::ipsOf);
            }
            observedLbs.add(known);
        }
        return new ObservedState(observedEndpoints, observedLbs);
    }

    private void observeEndpoints(HostComputeNetwork current) {
        Set<String> ids = lowerSet(hns.listEndpointIds(current.id()));
        // The first observe puts the owned endpoints of the journal into the drift rotation; later ones join it
        // when winproxy creates or adopts them.
        boolean seedDrift = !driftSeeded;
        driftSeeded = true;
        for (var it = endpoints.values().iterator(); it.hasNext(); ) {
            ObservedEndpoint known = it.next();
            if (!ids.contains(known.id())) {
                changedIps.addAll(known.ips());
                it.remove();
            }
        }
        if (endpointDocs.keySet().retainAll(ids)) {
            endpointDocsView = null;
        }
        List<String> gone = journal.ownership().remoteEndpointIds().stream().filter(id -> !ids.contains(id)).toList();
        for (String owned : gone) {
            logger.debug("Owned remote endpoint {} is gone from HNS", owned);
            journal.remoteEndpoint(owned).ifPresent(e -> changedIps.add(e.ip()));
            journal.vanishedRemoteEndpoint(owned);
        }
        if (!gone.isEmpty()) {
            logger.info("{} owned remote endpoint(s) are gone from HNS; remembered for {}m in case HNS restores them, "
                    + "re-created if still desired", gone.size(), OwnershipJournal.VANISHED_RETENTION.toMinutes());
        }
        int readopted = 0;
        for (String id : ids) {
            if (endpoints.containsKey(id)) {
                continue;
            }
            if (!journal.ownsRemoteEndpoint(id) && journal.readoptRemoteEndpoint(id)) {
                // HNS restored an owned endpoint that had vanished (rehydration after its restart).
                journal.remoteEndpoint(id).ifPresent(e -> changedIps.add(e.ip()));
                drift.track(id);
                readopted++;
                continue;
            }
            if (journal.ownsRemoteEndpoint(id)) {
                if (seedDrift) {
                    drift.track(id);
                }
                continue;
            }
            hns.getEndpoint(id).ifPresent(this::remember);
        }
        if (readopted > 0) {
            logger.info("Re-adopted {} remote endpoint(s) that HNS restored with the IDs winproxy gave them", readopted);
        }
    }

    /**
     * Keeps what was read of an endpoint winproxy does not own: the policy view, and the whole document of a local
     * endpoint (the node network is built from those). A remote one's document is not kept: at 100,000 endpoints
     * that would be tens of megabytes for nothing.
     */
    void remember(HostComputeEndpoint doc) {
        ObservedEndpoint read = HcnTranslator.toObserved(doc);
        // One string per provider address (a node's IP), not one per endpoint read.
        String pa = providerAddresses.computeIfAbsent(read.providerAddress(), k -> k);
        ObservedEndpoint observed = pa == read.providerAddress() ? read
                : new ObservedEndpoint(read.id(), read.ips(), read.remote(), pa, read.macAddress());
        changedIps.addAll(observed.ips());
        if (!doc.isRemote()) {
            endpointDocs.put(observed.id(), doc);
            endpointDocsView = null;
        }
        endpoints.put(observed.id(), observed);
    }

    private void observeLoadBalancers() {
        List<String> ids = new ArrayList<>(lowerSet(hns.listLoadBalancerIds()));
        Set<String> present = new LinkedHashSet<>(ids);
        for (var it = lbDocs.values().iterator(); it.hasNext(); ) {
            HostComputeLoadBalancer doc = it.next();
            if (!present.contains(HnsIds.normalize(doc.id()))) {
                addKey(HcnTranslator.toObserved(doc, Map.of()).key());
                it.remove();
            }
        }
        journaled.keySet().retainAll(present);
        List<String> gone = journal.ownership().loadBalancerIds().stream().filter(id -> !present.contains(id))
                .toList();
        for (String owned : gone) {
            logger.debug("Owned load balancer {} ({}) is gone from HNS", owned,
                    journal.loadBalancer(owned).map(OwnershipJournal.LoadBalancerEntry::service).orElse(""));
            journal.loadBalancer(owned).ifPresent(e -> addKey(HcnTranslator.parseKey(e.key(), e.ipv6())));
            journal.vanishedLoadBalancer(owned);
        }
        if (!gone.isEmpty()) {
            logger.info("{} owned load balancer(s) are gone from HNS; remembered for {}m in case HNS restores them, "
                    + "re-created if still desired", gone.size(), OwnershipJournal.VANISHED_RETENTION.toMinutes());
        }
        int readopted = 0;
        for (String id : ids) {
            if (!journal.ownsLoadBalancer(id) && !lbDocs.containsKey(id) && journal.readoptLoadBalancer(id)) {
                // HNS restored an owned load balancer that had vanished; its fingerprint judges it from now on.
                journal.loadBalancer(id).ifPresent(e -> addKey(HcnTranslator.parseKey(e.key(), e.ipv6())));
                readopted++;
            }
            Optional<OwnershipJournal.LoadBalancerEntry> entry = journal.loadBalancer(id);
            ObservedLoadBalancer fromJournal = entry.map(e -> journaled(id, e)).orElse(null);
            if (fromJournal != null) {
                if (journaled.put(id, fromJournal) == null) {
                    drift.track(id);
                }
                lbDocs.remove(id);
                continue;
            }
            journaled.remove(id);
            if (!lbDocs.containsKey(id)) {
                hns.getLoadBalancer(id).ifPresent(doc -> {
                    lbDocs.put(id, doc);
                    addKey(HcnTranslator.toObserved(doc, Map.of()).key());
                });
            }
        }
        if (readopted > 0) {
            logger.info("Re-adopted {} load balancer(s) that HNS restored with the IDs winproxy gave them", readopted);
        }
        lbIds = ids;
    }

    /** An owned load balancer known from its journal entry, or null when the entry has no fingerprint or key. */
    private ObservedLoadBalancer journaled(String id, OwnershipJournal.LoadBalancerEntry entry) {
        if (entry.fingerprint() == null) {
            return null;
        }
        ObservedLoadBalancer cached = journaled.get(id);
        if (cached != null && entry.fingerprint().equals(cached.fingerprint())) {
            return cached;
        }
        LoadBalancerKey key = HcnTranslator.parseKey(entry.key(), entry.ipv6());
        return key == null ? null : ObservedLoadBalancer.journaled(id, key, entry.fingerprint());
    }

    private void readForDrift(String id, Map<String, ObservedLoadBalancer> lbs, Map<String, ObservedEndpoint> eps) {
        Optional<OwnershipJournal.LoadBalancerEntry> lb = journal.loadBalancer(id);
        if (lb.isPresent()) {
            hns.getLoadBalancer(id).ifPresent(doc -> {
                ObservedLoadBalancer read = HcnTranslator.toObserved(doc, this::ipsOf)
                        .withFingerprint(lb.get().fingerprint());
                lbs.put(id, read);
                addKey(read.key());
                addKey(HcnTranslator.parseKey(lb.get().key(), lb.get().ipv6()));
            });
            return;
        }
        Optional<OwnershipJournal.RemoteEndpointEntry> ep = journal.remoteEndpoint(id);
        if (ep.isPresent()) {
            hns.getEndpoint(id).ifPresent(doc -> {
                ObservedEndpoint read = HcnTranslator.toObserved(doc);
                // What HNS omits is not drift: an absent provider address is taken from the journal.
                String pa = read.providerAddress().isEmpty() ? ep.get().providerAddress() : read.providerAddress();
                ObservedEndpoint seen = new ObservedEndpoint(id, read.ips(), read.remote(), pa,
                        ep.get().storedMac());
                ObservedEndpoint written = HcnTranslator.toObserved(id, ep.get());
                if (!seen.equals(written)) {
                    logger.warn("Owned remote endpoint {} changed behind winproxy's back ({} -> {}); repairing",
                            id, written, seen);
                }
                eps.put(id, seen);
                changedIps.add(ep.get().ip());
                changedIps.addAll(seen.ips());
            });
        }
    }

    /** The IPs of an endpoint (lower-case ID): read, or owned and described by the journal; null when unknown. */
    private List<String> ipsOf(String id) {
        ObservedEndpoint read = endpoints.get(id);
        if (read != null) {
            return read.ips();
        }
        return journal.remoteEndpoint(id).map(e -> List.of(e.ip())).orElse(null);
    }

    /**
     * Overlay only: makes sure a local endpoint holds the source VIP, with the host MAC (upstream winkernel creates
     * it at the start of every sync when no endpoint has that IP; the load balancers' SNAT address must exist on the
     * host). Local, so never deleted. Called by the sync loop after {@link #observe}; never by read-only tools.
     *
     * @param sourceVip the node's source VIP ("" on L2Bridge: nothing to do)
     * @param hostMac   the MAC of the host interface ("aa-bb-cc-dd-ee-ff"), "" when unknown
     * @return true when the endpoint was created by this call
     * @throws HnsException when HNS cannot create it
     */
    public boolean ensureSourceVipEndpoint(String sourceVip, String hostMac) {
        if (network == null || sourceVip == null || sourceVip.isEmpty() || !network.isOverlay()) {
            return false;
        }
        String canonical = HcnTranslator.canonicalIp(sourceVip);
        boolean present = endpoints.values().stream().anyMatch(e -> !e.remote() && e.ips().contains(canonical));
        if (present) {
            return false;
        }
        HostComputeEndpoint created = hns.createEndpoint(network.id(), HostComputeEndpoint.local(network.id(),
                SOURCE_VIP_ENDPOINT_NAME, sourceVip, 32, hostMac == null || hostMac.isEmpty() ? null : hostMac)
                .withId(HnsIds.newId(ThreadLocalRandom.current())));
        logger.info("Created the source VIP endpoint {} for {} (MAC {}) on network {}", created.id(), sourceVip,
                hostMac == null || hostMac.isEmpty() ? "unknown" : hostMac, networkName);
        remember(created);
        return true;
    }

    /**
     * What the last {@link #observe} saw change on the host: the keys of load balancers and the IPs of endpoints that
     * vanished, appeared (read for the first time) or were re-read for drift; everything when the network is new,
     * was recreated or changed (its routes decide provider addresses).
     */
    public IncrementalPlanner.HostChanges hostChanges() {
        return changedEverything ? IncrementalPlanner.HostChanges.EVERYTHING
                : new IncrementalPlanner.HostChanges(false, Set.copyOf(changedKeys), Set.copyOf(changedIps));
    }

    /** Whether two reads of the network agree on what the policy takes from it (type, addresses, routes). */
    private static boolean sameRouting(HostComputeNetwork a, HostComputeNetwork b) {
        return a.id().equalsIgnoreCase(b.id()) && Objects.equals(a.type(), b.type())
                && a.providerAddress().equals(b.providerAddress()) && a.subnetPrefixes().equals(b.subnetPrefixes())
                && a.remoteSubnetRoutes().equals(b.remoteSubnetRoutes());
    }

    private void addKey(LoadBalancerKey key) {
        if (key != null) {
            changedKeys.add(key);
        }
    }

    /**
     * Executes the plan's steps in order (see {@link PlanExecutor}).
     *
     * @throws IllegalStateException when called before {@link #observe}
     */
    public ApplyResult apply(Plan plan) {
        return apply(plan, null);
    }

    /**
     * Executes the plan's steps, most urgent first; with a {@code bound}, the steps not started when it has passed
     * are left for the next sync ({@link ApplyResult#partial()}).
     *
     * @param bound how long the apply may take (null: no bound)
     * @throws IllegalStateException when called before {@link #observe}
     */
    public ApplyResult apply(Plan plan, Duration bound) {
        if (network == null) {
            throw new IllegalStateException("apply before observe");
        }
        List<ObservedEndpoint> observed = lastObserved;
        lastObserved = List.of();
        long start = nanoTime.getAsLong();
        long deadline = bound == null ? start + Long.MAX_VALUE / 2 : start + bound.toNanos();
        return executor.apply(plan, network.id(), observed, deadline, nanoTime);
    }

    // ---- callbacks of the executor: keep the host model current without re-reading it -----------------------

    void created(ObservedEndpoint endpoint) {
        drift.track(endpoint.id());
    }

    void adoptedEndpoint(ObservedEndpoint endpoint) {
        if (endpointDocs.remove(endpoint.id()) != null) {
            endpointDocsView = null;
        }
        endpoints.remove(endpoint.id());
        drift.track(endpoint.id());
    }

    /** Whether the endpoint is a local one (the CNI's; never deleted by winproxy). */
    boolean isLocalEndpoint(String id) {
        ObservedEndpoint known = endpoints.get(id);
        return known != null && !known.remote();
    }

    void deletedEndpoint(String id) {
        endpoints.remove(id);
        if (endpointDocs.remove(id) != null) {
            endpointDocsView = null;
        }
    }

    /** A load balancer winproxy wrote or adopted: its journal entry describes it from now on. */
    void wroteLoadBalancer(String id) {
        lbDocs.remove(id);
    }

    void deletedLoadBalancer(String id) {
        lbDocs.remove(id);
        journaled.remove(id);
    }

    private static Set<String> lowerSet(List<String> ids) {
        Set<String> out = new LinkedHashSet<>(ids.size() * 2);
        for (String id : ids) {
            out.add(HnsIds.normalize(id));
        }
        return out;
    }
}
