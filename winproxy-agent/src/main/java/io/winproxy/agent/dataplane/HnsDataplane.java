package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.SchemaVersion;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.IncrementalPlanner;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter between the policy vocabulary and HNS: {@link #observe} reads the host cheaply ({@link HostObserver})
 * and {@link #apply} executes a plan ({@link PlanExecutor}). The two share what is known of the host
 * ({@link HostCache}) and the {@link OwnershipJournal}, and do not know each other.
 *
 * <p>What a sync costs, in native HCN calls: the network by name (one enumerate, one document read, which carries
 * the remote-subnet routes), the IDs of its endpoints (one enumerate) and of every load balancer (one enumerate).
 * Owned objects are described by the {@link OwnershipJournal} (what winproxy wrote), never re-read; documents are read
 * only for IDs not seen before (the CNI's local endpoints, objects winproxy does not own, objects to adopt) and kept
 * by ID, since HNS objects change only through a modify. A vanished ID is forgotten, and an owned one is re-created
 * if still desired; its ID is remembered for a while, so that an object HNS restores after its restart (with the old
 * ID) is re-adopted as owned, and a re-create reuses the ID. Content drift of owned objects is checked on a rolling
 * budget ({@link DriftSampler}), only in syncs that ask for it, comparing only what HNS is documented to return.
 *
 * <p>Guarantees of {@link #apply}: a failing step never stops the others (it is reported and its object backs off);
 * HNS errors are classified by HRESULT; local endpoints are never deleted; every create is recorded in the journal (and
 * flushed) before it is made, so a crash leaks nothing; new objects get IDs chosen by winproxy unless HNS showed that it
 * does not honour them ({@link IdChoice}).
 *
 * <p>Not thread-safe: one sync thread calls {@code observe} then {@code apply}.
 */
public final class HnsDataplane {
    private static final Logger logger = LoggerFactory.getLogger(HnsDataplane.class);
    /**
     * The name of the source-VIP endpoint winproxy creates without an address, for HNS to assign one (overlay without
     * {@code --source-vip}); older versions also gave it to the endpoint they created for {@code --source-vip}. Found
     * again by this name after a restart, so the address HNS assigned is reused. An endpoint for an explicit
     * {@code --source-vip} is created without a name, as upstream's.
     */
    public static final String SOURCE_VIP_ENDPOINT_NAME = "winproxy-source-vip";

    private final HnsClient hns;
    private final String networkName;
    private final OwnershipJournal journal;
    private final HostCache cache;
    private final HostObserver observer;
    private final PlanExecutor executor;
    private final IdChoice ids;
    private final BackendLimit backendLimit;
    private final LongSupplier nanoTime;
    private volatile boolean stopping;

    /**
     * A dataplane with the default drift budget and random IDs.
     *
     * @param syncPeriod caps the per-object backoff
     * @param nanoTime   the monotonic clock ({@code System::nanoTime} in production)
     */
    public HnsDataplane(HnsClient hns, String networkName, OwnershipJournal journal, Duration syncPeriod,
                        LongSupplier nanoTime) {
        this(hns, networkName, journal, syncPeriod, nanoTime, DriftBudget.DEFAULT,
                () -> HnsIds.newId(ThreadLocalRandom.current()));
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
        this.nanoTime = nanoTime;
        this.cache = new HostCache(new DriftSampler(drift.period(), drift.readsPerSync(), nanoTime));
        this.observer = new HostObserver(hns, networkName, journal, cache);
        this.ids = new IdChoice(newId, journal.file().map(f -> f.resolveSibling(IdChoice.FILE_NAME)).orElse(null));
        this.backendLimit = BackendLimit.of(journal.file().map(f -> f.getParent()).orElse(null), null);
        this.executor = new PlanExecutor(hns, journal, cache, new ObjectBackoff(Duration.ofSeconds(1),
                maxBackoff(syncPeriod), nanoTime), ids, backendLimit, hns.capabilities().modifyLoadBalancer(),
                () -> stopping);
    }

    private static Duration maxBackoff(Duration syncPeriod) {
        Duration cap = Duration.ofMinutes(2);
        return syncPeriod.compareTo(cap) > 0 ? syncPeriod : cap;
    }

    /** False once a modify failed or misbehaved (or HNS never supported it); plans then replace. */
    public boolean modifySupported() {
        return executor.modifySupported();
    }

    /**
     * How a failed object backs off ({@code winproxy status}): consecutive failures and how long its steps are still
     * skipped. Sync thread only, like {@link #apply}.
     *
     * @param object a plan step's object (a load-balancer key, an endpoint IP, an ID)
     */
    public Backoff backoff(String object) {
        return new Backoff(executor.backoff.failures(object), executor.backoff.waitLeft(object));
    }

    /** Consecutive failures of an object and the time left before its steps run again. */
    public record Backoff(int failures, Duration waitLeft) {
    }

    /**
     * The most backends one load balancer gets on this node and where that comes from (configured, learnt, or
     * winproxy's default); lowered while running when HNS refuses a load balancer for its size.
     */
    public BackendLimit backendLimit() {
        return backendLimit;
    }

    /** What winproxy learnt about HNS honouring the IDs it chooses, in one line. */
    public String idChoice() {
        return ids.describe();
    }

    /**
     * Asks a running {@link #apply} to stop before its next step (the agent is shutting down); the steps not run are
     * reported as remaining. Any thread may call it.
     */
    public void requestStop() {
        stopping = true;
    }

    /** The network seen by the last {@link #observe}. */
    public Optional<HostComputeNetwork> network() {
        return observer.network();
    }

    /**
     * The documents of the network's local endpoints (the CNI's, and the source-VIP endpoint), as read once and kept
     * by ID. Remote endpoints are described by the journal (owned ones) or by what was read of them.
     */
    public List<HostComputeEndpoint> endpoints() {
        return cache.localEndpointDocs();
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
     * @param driftCheck spend the drift budget in this sync
     * @throws HnsNetworkNotFoundException when the network does not exist
     * @throws HnsException                when HNS cannot be read
     */
    public ObservedState observe(boolean driftCheck) {
        return observer.observe(driftCheck);
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
        HostComputeNetwork network = observer.network().orElse(null);
        if (network == null || sourceVip == null || sourceVip.isEmpty() || !network.isOverlay()) {
            return false;
        }
        String canonical = HcnTranslator.canonicalIp(sourceVip);
        boolean present = cache.endpoints().values().stream().anyMatch(e -> !e.remote() && e.ips().contains(canonical));
        if (present) {
            return false;
        }
        // The fields upstream sends (IP, MAC, network; no name, no prefix length). Through IdChoice like every
        // create: on a fresh overlay node this is the process's first endpoint create.
        HostComputeEndpoint doc = HostComputeEndpoint.local(network.id(), null, sourceVip, 0,
                hostMac == null || hostMac.isEmpty() ? null : hostMac);
        HostComputeEndpoint[] answered = new HostComputeEndpoint[1];
        String id = ids.create(IdChoice.Kind.ENDPOINT, "source VIP " + sourceVip, ids.reserve(), sent -> {
            answered[0] = hns.createEndpoint(network.id(), sent == null ? doc : doc.withId(sent));
            return answered[0].id();
        }, got -> hns.getEndpoint(got).isPresent(), () -> { });
        HostComputeEndpoint created = answered[0].withId(id);
        logger.info("Created the source VIP endpoint {} for {} (MAC {}) on network {}", created.id(), sourceVip,
                hostMac == null || hostMac.isEmpty() ? "unknown" : hostMac, networkName);
        observer.rememberCreated(created);
        return true;
    }

    /**
     * Overlay without a source VIP (no {@code --source-vip}, no CNI endpoint for it, none assigned earlier): creates a
     * local endpoint named {@value #SOURCE_VIP_ENDPOINT_NAME} without an address, with the host MAC, so that HNS
     * assigns it one from the network's subnet (its IPAM: kubernetes#96996), through {@link IdChoice} like every
     * create (so with winproxy's mark when HNS honours it), journaled as owned before the create and with its address
     * after. The endpoint is read back for the address. Local, so never deleted; a restart finds it by name
     * ({@code NodeNetworkFactory.cniSourceVip}) and reuses the address.
     *
     * @return the address HNS assigned; empty when the network is not overlay, or when the read-back did not find
     *         the endpoint (HNS gave it another ID: the next observe reads it)
     * @throws HnsException when HNS cannot create it
     */
    public Optional<String> createAssignedSourceVip(String hostMac) {
        HostComputeNetwork network = observer.network().orElse(null);
        if (network == null || !network.isOverlay()) {
            return Optional.empty();
        }
        HostComputeEndpoint doc = new HostComputeEndpoint(null, SOURCE_VIP_ENDPOINT_NAME, network.id(), List.of(),
                List.of(), hostMac == null || hostMac.isEmpty() ? null : hostMac, 0, SchemaVersion.V2);
        // Journaled before the create (write-ahead), as owned; an earlier one is gone, or this would not run.
        List.copyOf(journal.localEndpoints().keySet()).forEach(journal::forgetLocalEndpoint);
        String reserved = ids.reserve();
        journal.recordLocalEndpoint(reserved, "");
        journal.flush();
        String id;
        try {
            id = ids.create(IdChoice.Kind.ENDPOINT, "source VIP assigned by HNS", reserved,
                    sent -> hns.createEndpoint(network.id(), sent == null ? doc : doc.withId(sent)).id(),
                    got -> hns.getEndpoint(got).isPresent(), () -> { });
        } catch (HnsException e) {
            // Nothing was created (or, after a lost reply, the next sync finds it by name): not owned.
            journal.forgetLocalEndpoint(reserved);
            throw e;
        }
        Optional<HostComputeEndpoint> created = hns.getEndpoint(id);
        if (created.isEmpty()) {
            // HNS gave it an ID of its own (ids-ignored): it is the one new endpoint of the enumerate with this name.
            created = findNewSourceVipEndpoint(network.id());
        }
        created.ifPresent(observer::rememberCreated);
        Optional<String> vip = created.flatMap(HostComputeEndpoint::ipAddress).map(HcnTranslator::canonicalIp);
        journal.forgetLocalEndpoint(reserved);
        journal.recordLocalEndpoint(created.map(HostComputeEndpoint::id).orElse(id), vip.orElse(""));
        journal.flush();
        logger.atInfo().setMessage("Created the source VIP endpoint without an address; HNS assigned one from the "
                + "network's subnet").addKeyValue("id", id).addKeyValue("sourceVip", vip.orElse("(read next sync)"))
                .addKeyValue("network", networkName).addKeyValue("mac", hostMac == null || hostMac.isEmpty()
                        ? "unknown" : hostMac).log();
        return vip;
    }

    /** Among the network's endpoints not known yet (one enumerate, reads of the unknown only), the named one. */
    private Optional<HostComputeEndpoint> findNewSourceVipEndpoint(String networkId) {
        for (String other : hns.listEndpointIds(networkId)) {
            String key = HnsIds.normalize(other);
            if (journal.ownsRemoteEndpoint(key) || cache.endpoints().containsKey(key)) {
                continue;
            }
            Optional<HostComputeEndpoint> doc = ByIdCalls.read(() -> hns.getEndpoint(other), "endpoint", other);
            if (doc != null && doc.isPresent() && !doc.get().isRemote()
                    && SOURCE_VIP_ENDPOINT_NAME.equals(doc.get().name())) {
                return doc;
            }
        }
        return Optional.empty();
    }

    /**
     * A source VIP and where it comes from, for the start line and /statusz: {@code 10.244.1.2 (--source-vip)},
     * {@code 10.244.1.2 (assigned by HNS)} when the endpoint holding it is winproxy's address-less one, else
     * {@code 10.244.1.2 (CNI endpoint NAME)}; "" for "".
     */
    public String describeSourceVip(String vip, boolean configured) {
        if (vip == null || vip.isEmpty()) {
            return "";
        }
        if (configured) {
            return vip + " (--source-vip)";
        }
        for (HostComputeEndpoint e : cache.localEndpointDocs()) {
            if (e.ipAddress().map(HcnTranslator::canonicalIp).filter(vip::equals).isPresent()) {
                return SOURCE_VIP_ENDPOINT_NAME.equals(e.name()) ? vip + " (assigned by HNS)"
                        : vip + " (CNI endpoint " + e.name() + ")";
            }
        }
        return vip;
    }

    /** What the last {@link #observe} saw change on the host (see {@link HostObserver#hostChanges()}). */
    public IncrementalPlanner.HostChanges hostChanges() {
        return observer.hostChanges();
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
        HostComputeNetwork network = observer.network()
                .orElseThrow(() -> new IllegalStateException("apply before observe"));
        ObservedState observed = observer.takeObserved();
        long start = nanoTime.getAsLong();
        long deadline = bound == null ? start + Long.MAX_VALUE / 2 : start + bound.toNanos();
        ApplyResult result = executor.apply(plan, network.id(), observed, deadline, nanoTime);
        observer.afterApply();
        return result;
    }
}
