package io.winproxy.agent.dataplane;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.LinkedHashSet;

/**
 * What winproxy knows of the host beyond its journal: the documents it read once and keeps by ID (HNS objects change
 * only through a modify), and the owned objects in the drift rotation. {@link HostObserver} fills it from reads;
 * {@link PlanExecutor} keeps it current as it writes, so that the next observe need not re-read what was written.
 * Neither knows the other: both depend on this.
 *
 * <p>IDs are lower-case. Not thread-safe: the sync thread only.
 */
final class HostCache {
    /**
     * The endpoints winproxy does not own, by ID, as read once (in the order first seen). Owned remote endpoints are
     * not kept here: the journal describes them.
     */
    private final Map<String, ObservedEndpoint> endpoints = new LinkedHashMap<>();
    /** Counts changes of {@link #endpoints}. */
    private long endpointsVersion;
    /** The documents read of local endpoints (the CNI's, the source VIP's). */
    private final Map<String, HostComputeEndpoint> endpointDocs = new LinkedHashMap<>();
    /**
     * The same list instance until the local endpoints change, so that the node network built from it is rebuilt
     * only then (see {@code VfpPolicyEngine}).
     */
    private List<HostComputeEndpoint> endpointDocsView;
    /** The documents read of load balancers not described by a journal fingerprint. */
    final Map<String, HostComputeLoadBalancer> lbDocs = new HashMap<>();
    /** Owned load balancers as the journal describes them. */
    final Map<String, ObservedLoadBalancer> journaled = new HashMap<>();
    /** One string per provider address (a node's IP), not one per endpoint read. */
    private final Map<String, String> providerAddresses = new HashMap<>();
    final DriftSampler drift;
    private final Set<String> toVerify = new LinkedHashSet<>();
    private final Set<String> forgottenEndpoints = new LinkedHashSet<>();
    private final Set<String> forgottenLoadBalancers = new LinkedHashSet<>();
    /** IDs written since the last observe, in order: the observer expects its next enumerate to list them. */
    private final List<String> writtenEndpoints = new ArrayList<>();
    private final List<String> writtenLoadBalancers = new ArrayList<>();

    HostCache(DriftSampler drift) {
        this.drift = drift;
    }

    /** Forgets every document (the network was recreated). */
    void clear() {
        endpoints.clear();
        endpointsVersion++;
        endpointDocs.clear();
        endpointDocsView = null;
        lbDocs.clear();
    }

    List<HostComputeEndpoint> localEndpointDocs() {
        if (endpointDocsView == null) {
            endpointDocsView = List.copyOf(endpointDocs.values());
        }
        return endpointDocsView;
    }

    /** Keeps only the local endpoint documents whose ID is in {@code ids}. */
    void retainLocalEndpoints(Set<String> ids) {
        if (endpointDocs.keySet().retainAll(ids)) {
            endpointDocsView = null;
        }
    }

    /**
     * Keeps what was read of an endpoint winproxy does not own: the policy view, and the whole document of a local
     * endpoint (the node network is built from those). A remote one's document is not kept: at 100,000 endpoints
     * that would be tens of megabytes for nothing. Returns the view kept.
     */
    ObservedEndpoint remember(HostComputeEndpoint doc) {
        ObservedEndpoint read = HcnTranslator.toObserved(doc);
        String pa = providerAddresses.computeIfAbsent(read.providerAddress(), k -> k);
        ObservedEndpoint observed = pa == read.providerAddress() ? read
                : new ObservedEndpoint(read.id(), read.ips(), read.remote(), pa, read.macAddress());
        if (!doc.isRemote()) {
            endpointDocs.put(observed.id(), doc);
            endpointDocsView = null;
        }
        endpoints.put(observed.id(), observed);
        endpointsVersion++;
        return observed;
    }

    /** The endpoints winproxy does not own, as read (unmodifiable view). */
    Map<String, ObservedEndpoint> endpoints() {
        return java.util.Collections.unmodifiableMap(endpoints);
    }

    long endpointsVersion() {
        return endpointsVersion;
    }

    /** Whether the endpoint is a local one (the CNI's; never deleted by winproxy). */
    boolean isLocalEndpoint(String id) {
        ObservedEndpoint known = endpoints.get(id);
        return known != null && !known.remote();
    }

    // ---- what the executor wrote --------------------------------------------------------------------------------

    /** A remote endpoint winproxy created: owned, described by the journal, checked for drift. */
    void createdEndpoint(String id) {
        drift.track(id);
        writtenEndpoints.add(id);
    }

    /** An endpoint winproxy adopted: owned from now on, so no longer kept as read. */
    void adoptedEndpoint(String id) {
        vanishedEndpoint(id);
        drift.track(id);
    }

    /** An endpoint winproxy deleted (or found gone): forgotten, also from the last enumerate. */
    void deletedEndpoint(String id) {
        forgottenEndpoints.add(id);
        vanishedEndpoint(id);
    }

    /** An endpoint the enumerate no longer lists (or one no longer kept as read): its read view is dropped. */
    void vanishedEndpoint(String id) {
        if (endpoints.remove(id) != null) {
            endpointsVersion++;
        }
        if (endpointDocs.remove(id) != null) {
            endpointDocsView = null;
        }
    }

    /**
     * A load balancer winproxy wrote or adopted: its journal entry describes it from now on ({@code view}, built from
     * that entry), or, without a fingerprint ({@code view} null), the next observe reads it once.
     */
    void wroteLoadBalancer(String id, ObservedLoadBalancer view) {
        writtenLoadBalancers.add(id);
        if (view == null) {
            reread(id);
        } else {
            lbDocs.remove(id);
            if (journaled.put(id, view) == null) {
                drift.track(id);
            }
        }
    }

    /** A listed load balancer whose kept description no longer holds: the next observe reads its document. */
    void reread(String id) {
        lbDocs.remove(id);
        journaled.remove(id);
        toVerify.add(id);
    }

    /** The load balancers to read at the next observe (owned without a fingerprint), once. */
    List<String> drainToVerify() {
        return OwnershipJournal.drain(toVerify);
    }

    /** A load balancer winproxy deleted (or found gone by a delete): forgotten, also from the last enumerate. */
    void deletedLoadBalancer(String id) {
        lbDocs.remove(id);
        journaled.remove(id);
        forgottenLoadBalancers.add(id);
    }

    /**
     * The IDs whose description was dropped since the last call (deleted by winproxy, or found gone by a delete):
     * the observer forgets them from its last enumerate, so that one still or again listed (HNS restored it) is read
     * as new instead of staying listed but undescribed.
     */
    List<String> drainForgotten(boolean endpoint) {
        return OwnershipJournal.drain(endpoint ? forgottenEndpoints : forgottenLoadBalancers);
    }

    /**
     * The IDs of the objects written (created, adopted, modified) since the last call, in order: described already
     * (the journal, the drift rotation), so the next enumerate listing them is no news.
     */
    List<String> drainWritten(boolean endpoint) {
        return OwnershipJournal.drain(endpoint ? writtenEndpoints : writtenLoadBalancers);
    }
}
