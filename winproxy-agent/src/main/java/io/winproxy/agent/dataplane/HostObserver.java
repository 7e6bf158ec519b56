package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.plan.Fingerprints;
import io.winproxy.policy.plan.IncrementalPlanner;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the host cheaply (see {@link HnsDataplane} for the cost model): the network by name, the IDs of its endpoints
 * and of every load balancer, compared with the previous enumerate ({@link EnumeratedIds}) so that only IDs that
 * appeared or vanished cost work; documents only for IDs not seen before, for objects the executor left to verify, and
 * on the drift budget. Owned objects are described by the journal. Reads only: it never writes to HNS.
 *
 * <p>Not thread-safe: the sync thread only.
 *
 * <p>About 400 lines: the three reads of a sync (endpoints, load balancers, drift) and what each tells the planner,
 * kept together because they share the cache, the journal and the change sets they fill.
 */
final class HostObserver {
    private static final Logger logger = LoggerFactory.getLogger(HostObserver.class);

    private final HnsClient hns;
    private final String networkName;
    private final OwnershipJournal journal;
    private final HostCache cache;

    private HostComputeNetwork network;
    private final EnumeratedIds endpointIds = new EnumeratedIds();
    private final EnumeratedIds lbIds = new EnumeratedIds();
    /** IDs listed whose document could not be read yet (a create racing the read): read again next time. */
    private final Set<String> unreadEndpoints = new HashSet<>();
    private final Set<String> unreadLoadBalancers = new HashSet<>();
    private Set<LoadBalancerKey> changedKeys = new HashSet<>();
    private Set<String> changedIps = new HashSet<>();
    private boolean changedEverything = true;
    private List<ObservedEndpoint> endpointList;
    private long listJournalVersion;
    private long listCacheVersion;
    /** What the last observe saw, until the executor takes it. */
    private ObservedState lastObserved = ObservedState.EMPTY;

    HostObserver(HnsClient hns, String networkName, OwnershipJournal journal, HostCache cache) {
        this.hns = hns;
        this.networkName = networkName;
        this.journal = journal;
        this.cache = cache;
    }

    Optional<HostComputeNetwork> network() {
        return Optional.ofNullable(network);
    }

    /** What the last observe saw (for the executor's resolver); empty once taken. */
    ObservedState takeObserved() {
        ObservedState out = lastObserved;
        lastObserved = ObservedState.EMPTY;
        return out;
    }

    ObservedState observe(boolean driftCheck) {
        HostComputeNetwork current = hns.getNetworkByName(networkName)
                .orElseThrow(() -> new HnsNetworkNotFoundException(networkName));
        changedKeys = new HashSet<>();
        changedIps = new HashSet<>();
        changedEverything = network == null;
        boolean fresh = network == null;
        if (network != null && !network.id().equalsIgnoreCase(current.id())) {
            logger.atWarn().setMessage("HNS network was recreated; re-reading and re-programming everything")
                    .addKeyValue("network", networkName).addKeyValue("oldID", network.id())
                    .addKeyValue("newID", current.id()).log();
            cache.clear();
            endpointIds.clear();
            lbIds.clear();
            unreadEndpoints.clear();
            unreadLoadBalancers.clear();
            changedEverything = true;
            fresh = true;
        }
        if (network == null || !sameRouting(network, current)) {
            // New remote-subnet routes or a new provider address change the desired state as a whole.
            changedEverything = true;
        }
        network = current;
        journal.expireVanished();
        observeEndpoints(current, fresh);
        observeLoadBalancers(fresh);

        Map<String, ObservedLoadBalancer> drifted = new HashMap<>();
        Map<String, ObservedEndpoint> driftedEndpoints = new HashMap<>();
        for (String id : cache.drift.next(driftCheck, id -> journal.ownsLoadBalancer(id)
                || journal.ownsRemoteEndpoint(id))) {
            readForDrift(id, drifted, driftedEndpoints);
        }

        List<ObservedEndpoint> observedEndpoints = endpointList(driftedEndpoints);
        List<ObservedLoadBalancer> observedLbs = new ArrayList<>(lbIds.ids().size());
        List<ObservedLoadBalancer> read = new ArrayList<>();
        for (String id : lbIds.ids()) {
            ObservedLoadBalancer known = drifted.get(id);
            if (known == null) {
                known = cache.journaled.get(id);
            } else {
                read.add(known);
            }
            if (known == null) {
                HostComputeLoadBalancer doc = cache.lbDocs.get(id);
                if (doc == null) {
                    continue;
                }
                known = HcnTranslator.toObserved(doc, this::ipsOf);
                read.add(known);
            }
            observedLbs.add(known);
        }
        lastObserved = new ObservedState(observedEndpoints, observedLbs,
                new Lookup(observedEndpoints, driftedEndpoints.isEmpty(), read));
        return lastObserved;
    }

    /**
     * The lookup of one observe's state ({@link ObservedState.Lookup}): the endpoints read (the CNI's, a few per
     * node) walked in their order, the owned ones looked up by IP in the journal
     * ({@link OwnershipJournal#remoteEndpointViewsAt}), so that the plan and the apply of one change cost what it
     * concerns, not a pass over 100,000 endpoints. Answers from the journal and the cache only while they are as the
     * observe left them and no owned endpoint was re-read for drift (a periodic resync that found drift walks its
     * list, as does a lookup after the apply has begun writing).
     */
    private final class Lookup implements ObservedState.Lookup {
        private final List<ObservedEndpoint> all;
        private final boolean indexed;
        private final long journalVersion = journal.remoteEndpointsVersion();
        private final long cacheVersion = cache.endpointsVersion();
        private final List<ObservedLoadBalancer> read;

        Lookup(List<ObservedEndpoint> all, boolean indexed, List<ObservedLoadBalancer> read) {
            this.all = all;
            this.indexed = indexed;
            this.read = List.copyOf(read);
        }

        @Override
        public List<ObservedEndpoint> endpointsHolding(Set<String> ips) {
            if (!indexed || journal.remoteEndpointsVersion() != journalVersion
                    || cache.endpointsVersion() != cacheVersion) {
                return ObservedState.holding(all, ips);
            }
            // In the list the read endpoints come first, then the journal's views in its order, each with one IP:
            // two that share an IP keep their order here.
            List<ObservedEndpoint> out = ObservedState.holding(cache.endpoints().values(), ips);
            for (String ip : ips) {
                out.addAll(journal.remoteEndpointViewsAt(ip));
            }
            return out;
        }

        @Override
        public List<ObservedLoadBalancer> loadBalancersRead() {
            return read;
        }
    }

    /**
     * Every endpoint: the ones read (not owned), then the owned ones as the journal describes them (or as re-read for
     * drift). The same immutable list as last time when neither changed, so that a sync without change costs no pass
     * over 100,000 endpoints here (nor in {@link ObservedState}'s copy); otherwise a copy of references to the journal's
     * own views of its entries ({@link OwnershipJournal#remoteEndpointViews()}), with no object made per endpoint.
     */
    private List<ObservedEndpoint> endpointList(Map<String, ObservedEndpoint> drifted) {
        long journalVersion = journal.remoteEndpointsVersion();
        long cacheVersion = cache.endpointsVersion();
        if (drifted.isEmpty() && endpointList != null && journalVersion == listJournalVersion
                && cacheVersion == listCacheVersion) {
            return endpointList;
        }
        List<ObservedEndpoint> out = new ArrayList<>(cache.endpoints().size() + journal.remoteEndpointCount());
        out.addAll(cache.endpoints().values());
        if (drifted.isEmpty()) {
            out.addAll(journal.remoteEndpointViews());
        } else {
            for (ObservedEndpoint view : journal.remoteEndpointViews()) {
                out.add(drifted.getOrDefault(view.id(), view));
            }
        }
        List<ObservedEndpoint> list = List.copyOf(out);
        if (drifted.isEmpty()) {
            endpointList = list;
            listJournalVersion = journalVersion;
            listCacheVersion = cacheVersion;
        } else {
            endpointList = null;
        }
        return list;
    }

    private void observeEndpoints(HostComputeNetwork current, boolean fresh) {
        settle(endpointIds, true);
        EnumeratedIds.Diff diff = endpointIds.update(hns.listEndpointIds(current.id()));
        for (String id : diff.vanished()) {
            ObservedEndpoint known = cache.endpoints().get(id);
            if (known != null) {
                changedIps.addAll(known.ips());
                // The enumerate already dropped it: only the read view goes (deletedEndpoint is the executor's).
                cache.vanishedEndpoint(id);
            }
            unreadEndpoints.remove(id);
        }
        List<String> gone = ownedButNotListed(fresh, journal.ownership().remoteEndpointIds(), diff.vanished(),
                journal.drainRecordedRemoteEndpoints(), journal::ownsRemoteEndpoint, endpointIds);
        for (String owned : gone) {
            logger.debug("Owned remote endpoint {} is gone from HNS", owned);
            journal.remoteEndpoint(owned).ifPresent(e -> changedIps.add(e.ip()));
            journal.vanishedRemoteEndpoint(owned);
        }
        logGone("remote endpoints", gone);
        int readopted = 0;
        for (String id : concat(diff.appeared(), List.copyOf(unreadEndpoints))) {
            unreadEndpoints.remove(id);
            if (!endpointIds.contains(id)) {
                continue;
            }
            if (!journal.ownsRemoteEndpoint(id) && journal.readoptRemoteEndpoint(id)) {
                // HNS restored an owned endpoint that had vanished (rehydration after its restart).
                journal.remoteEndpoint(id).ifPresent(e -> changedIps.add(e.ip()));
                cache.drift.track(id);
                readopted++;
            } else if (journal.ownsRemoteEndpoint(id)) {
                cache.drift.track(id);
            } else {
                Optional<HostComputeEndpoint> doc = ByIdCalls.read(() -> hns.getEndpoint(id), "endpoint", id);
                if (doc != null && doc.isPresent()) {
                    // kept under the enumerate's (lower-case) string for the ID, not a second copy from the document
                    HostComputeEndpoint read = id.equals(HnsIds.normalize(doc.get().id())) ? doc.get().withId(id)
                            : doc.get();
                    changedIps.addAll(cache.remember(read).ips());
                } else {
                    unreadEndpoints.add(id);
                }
            }
        }
        cache.retainLocalEndpoints(endpointIdsView());
        if (readopted > 0) {
            logger.atInfo().setMessage("Re-adopted remote endpoints that HNS restored with the IDs winproxy gave them")
                    .addKeyValue("count", readopted).log();
        }
    }

    private Set<String> endpointIdsView() {
        return new java.util.AbstractSet<>() {
            @Override
            public boolean contains(Object o) {
                return o instanceof String s && endpointIds.contains(s);
            }

            @Override
            public java.util.Iterator<String> iterator() {
                return endpointIds.ids().iterator();
            }

            @Override
            public int size() {
                return endpointIds.ids().size();
            }
        };
    }

    private void observeLoadBalancers(boolean fresh) {
        settle(lbIds, false);
        EnumeratedIds.Diff diff = lbIds.update(hns.listLoadBalancerIds());
        for (String id : diff.vanished()) {
            HostComputeLoadBalancer doc = cache.lbDocs.remove(id);
            if (doc != null) {
                addKey(HcnTranslator.toObserved(doc, Map.of()).key());
            }
            cache.journaled.remove(id);
            unreadLoadBalancers.remove(id);
        }
        List<String> gone = ownedButNotListed(fresh, journal.ownership().loadBalancerIds(), diff.vanished(),
                journal.drainRecordedLoadBalancers(), journal::ownsLoadBalancer, lbIds);
        for (String owned : gone) {
            logger.debug("Owned load balancer {} ({}) is gone from HNS", owned,
                    journal.loadBalancer(owned).map(OwnershipJournal.LoadBalancerEntry::service).orElse(""));
            journal.loadBalancer(owned).ifPresent(e -> addKey(HcnTranslator.parseKey(e.key(), e.ipv6())));
            journal.vanishedLoadBalancer(owned);
            cache.journaled.remove(owned);
        }
        logGone("load balancers", gone);
        int readopted = 0;
        for (String id : concat(concat(diff.appeared(), cache.drainToVerify()), List.copyOf(unreadLoadBalancers))) {
            unreadLoadBalancers.remove(id);
            if (!lbIds.contains(id)) {
                continue;
            }
            if (!journal.ownsLoadBalancer(id) && !cache.lbDocs.containsKey(id) && journal.readoptLoadBalancer(id)) {
                // HNS restored an owned load balancer that had vanished; its fingerprint judges it from now on.
                journal.loadBalancer(id).ifPresent(e -> addKey(HcnTranslator.parseKey(e.key(), e.ipv6())));
                readopted++;
            }
            ObservedLoadBalancer fromJournal = journal.loadBalancer(id).map(e -> journaled(id, e)).orElse(null);
            if (fromJournal != null) {
                if (cache.journaled.put(id, fromJournal) == null) {
                    cache.drift.track(id);
                }
                cache.lbDocs.remove(id);
                continue;
            }
            cache.journaled.remove(id);
            if (!cache.lbDocs.containsKey(id)) {
                Optional<HostComputeLoadBalancer> doc = ByIdCalls.read(() -> hns.getLoadBalancer(id),
                        "load balancer", id);
                if (doc != null && doc.isPresent()) {
                    cache.lbDocs.put(id, doc.get());
                    addKey(HcnTranslator.toObserved(doc.get(), Map.of()).key());
                } else {
                    unreadLoadBalancers.add(id);
                }
            }
        }
        if (readopted > 0) {
            logger.atInfo().setMessage("Re-adopted load balancers that HNS restored with the IDs winproxy gave them")
                    .addKeyValue("count", readopted).log();
        }
    }

    /**
     * The owned objects the enumerate does not list: of those that vanished since the last enumerate and those the
     * journal recorded since (creates whose outcome was not known); on a fresh start, of every owned one.
     */
    private static List<String> ownedButNotListed(boolean fresh, Set<String> allOwned, List<String> vanished,
                                                  List<String> recorded, Predicate<String> owns, EnumeratedIds listed) {
        List<String> gone = new ArrayList<>();
        for (String id : fresh ? List.copyOf(allOwned) : concat(vanished, recorded)) {
            if (owns.test(id) && !listed.contains(id)) {
                gone.add(id);
            }
        }
        return gone;
    }

    private static void logGone(String what, List<String> gone) {
        if (!gone.isEmpty()) {
            logger.atInfo().setMessage("Owned " + what + " are gone from HNS; remembered in case HNS restores them, "
                    + "re-created if still desired").addKeyValue("count", gone.size())
                    .addKeyValue("rememberedMinutes", OwnershipJournal.VANISHED_RETENTION.toMinutes()).log();
        }
    }

    /** An owned load balancer known from its journal entry, or null when the entry has no fingerprint or key. */
    static ObservedLoadBalancer journaled(String id, OwnershipJournal.LoadBalancerEntry entry) {
        if (entry.fingerprint() == null) {
            return null;
        }
        LoadBalancerKey key = HcnTranslator.parseKey(entry.key(), entry.ipv6());
        return key == null ? null : ObservedLoadBalancer.journaled(id, key, entry.fingerprint());
    }

    /**
     * Re-reads one owned object for content drift. One that holds what winproxy wrote (its fingerprint or journal
     * entry reproduced from the document) is no news: it is not planned again, so that the ~5,500 drift reads of a
     * periodic resync at 10,000 Services cost their reads and no planning. One that does not is handed to the planner
     * as read, with its key or IPs marked changed.
     */
    private void readForDrift(String id, Map<String, ObservedLoadBalancer> lbs, Map<String, ObservedEndpoint> eps) {
        Optional<OwnershipJournal.LoadBalancerEntry> lb = journal.loadBalancer(id);
        if (lb.isPresent()) {
            Optional<HostComputeLoadBalancer> found = ByIdCalls.read(() -> hns.getLoadBalancer(id), "load balancer",
                    id);
            (found == null ? Optional.<HostComputeLoadBalancer>empty() : found).ifPresent(doc -> {
                ObservedLoadBalancer read = HcnTranslator.toObserved(doc, this::ipsOf)
                        .withFingerprint(lb.get().fingerprint());
                if (lb.get().fingerprint() != null && lb.get().fingerprint().equals(Fingerprints.ofRead(read))) {
                    return;
                }
                lbs.put(id, read);
                addKey(read.key());
                addKey(HcnTranslator.parseKey(lb.get().key(), lb.get().ipv6()));
            });
            return;
        }
        Optional<ObservedEndpoint> ep = journal.remoteEndpointView(id);
        if (ep.isPresent()) {
            ObservedEndpoint written = ep.get();
            Optional<HostComputeEndpoint> found = ByIdCalls.read(() -> hns.getEndpoint(id), "endpoint", id);
            (found == null ? Optional.<HostComputeEndpoint>empty() : found).ifPresent(doc -> {
                ObservedEndpoint read = HcnTranslator.toObserved(doc);
                // What HNS omits is not drift: an absent provider address is taken from the journal.
                String pa = read.providerAddress().isEmpty() ? written.providerAddress() : read.providerAddress();
                ObservedEndpoint seen = new ObservedEndpoint(written.id(), read.ips(), read.remote(), pa,
                        written.macAddress());
                if (seen.equals(written)) {
                    return;
                }
                logger.atWarn().setMessage("Owned remote endpoint changed behind winproxy's back; repairing")
                        .addKeyValue("id", id).addKeyValue("written", written).addKeyValue("seen", seen).log();
                eps.put(id, seen);
                changedIps.addAll(written.ips());
                changedIps.addAll(seen.ips());
            });
        }
    }

    /** The IPs of an endpoint (lower-case ID): read, or owned and described by the journal; null when unknown. */
    private List<String> ipsOf(String id) {
        ObservedEndpoint read = cache.endpoints().get(id);
        if (read != null) {
            return read.ips();
        }
        return journal.remoteEndpoint(id).map(e -> List.of(e.ip())).orElse(null);
    }

    /**
     * Takes what the executor just wrote into the last enumerate: the IDs it deleted are forgotten, the ones it created
     * expected. Called by the facade at the end of an apply, so that the cost of 100,000 creates is paid by the sync
     * that made them, not by the next one; the observe does the same for anything written since.
     */
    void afterApply() {
        settle(endpointIds, true);
        settle(lbIds, false);
    }

    private void settle(EnumeratedIds ids, boolean endpoints) {
        cache.drainForgotten(endpoints).forEach(ids::forget);
        cache.drainWritten(endpoints).forEach(ids::expect);
    }

    /** A local endpoint the sync created (the source VIP's): kept as read. */
    void rememberCreated(HostComputeEndpoint doc) {
        changedIps.addAll(cache.remember(doc).ips());
    }

    /**
     * What the last {@link #observe} saw change on the host: the keys of load balancers and the IPs of endpoints that
     * vanished, appeared (read for the first time) or were re-read for drift; everything when the network is new,
     * was recreated or changed (its routes decide provider addresses).
     */
    IncrementalPlanner.HostChanges hostChanges() {
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

    private static List<String> concat(List<String> a, List<String> b) {
        if (b.isEmpty()) {
            return a;
        }
        if (a.isEmpty()) {
            return b;
        }
        List<String> out = new ArrayList<>(a.size() + b.size());
        out.addAll(a);
        out.addAll(b);
        return out;
    }
}
