package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.plan.HnsIds;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal authorises deletion, and on Windows more than winproxy may have written it. An object whose ID carries
 * winproxy's mark is winproxy's whatever the journal says; one without the mark (adopted from kube-proxy, or named by
 * an edited journal) is deleted on the journal's word only while its document still shows what the journal recorded
 * (the load balancer's key; a remote endpoint with the journaled IP). Otherwise the entry is forgotten with one warning
 * and the object is left alone. Costs one document read per delete of an unmarked object, nothing for marked ones.
 *
 * <p>Not thread-safe: the sync thread only.
 */
final class DeletionGuard {
    private static final Logger logger = LoggerFactory.getLogger(DeletionGuard.class);

    private final HnsClient hns;
    private final OwnershipJournal journal;
    private final HostCache cache;

    DeletionGuard(HnsClient hns, OwnershipJournal journal, HostCache cache) {
        this.hns = hns;
        this.journal = journal;
        this.cache = cache;
    }

    /** Whether a load balancer planned for deletion may be deleted. */
    boolean mayDeleteLoadBalancer(String id) {
        if (HnsIds.isWinproxys(id)) {
            return true;
        }
        Optional<OwnershipJournal.LoadBalancerEntry> entry = journal.loadBalancer(id);
        if (entry.isEmpty()) {
            return true; // not on the journal's word: the plan decided from what it read (a collision)
        }
        Optional<HostComputeLoadBalancer> doc = ByIdCalls.read(() -> hns.getLoadBalancer(id), "load balancer", id);
        if (doc == null) {
            return false; // HNS answered neither the document nor "not found": the next sync tries again
        }
        if (doc.isEmpty()) {
            return true; // gone already: the delete finds nothing and the entry is forgotten
        }
        LoadBalancerKey read = HcnTranslator.toObserved(doc.get(), Map.of()).key();
        LoadBalancerKey journaled = HcnTranslator.parseKey(entry.get().key(), entry.get().ipv6());
        if (read != null && read.equals(journaled)) {
            return true;
        }
        logger.atWarn().setMessage("Not deleting a load balancer the journal names: HNS shows something else; "
                + "forgetting the journal entry").addKeyValue("id", id).addKeyValue("journaled", entry.get().key())
                .addKeyValue("service", entry.get().service()).addKeyValue("hns", read).log();
        journal.forgetLoadBalancer(id);
        // Still on the host, now as another tool's: read again by the next observe, so that the planner sees it (it
        // may collide with a desired load balancer and must then be replaced, not created beside).
        cache.reread(HnsIds.normalize(id));
        return false;
    }

    /** Whether a remote endpoint planned for deletion may be deleted: still remote, still holding the IP. */
    boolean mayDeleteEndpoint(String id, String ip) {
        if (HnsIds.isWinproxys(id) || !journal.ownsRemoteEndpoint(id)) {
            return true;
        }
        Optional<HostComputeEndpoint> doc = ByIdCalls.read(() -> hns.getEndpoint(id), "endpoint", id);
        if (doc == null) {
            return false; // unsettled: the next sync tries again
        }
        if (doc.isEmpty() || (doc.get().isRemote() && doc.get().ipAddresses().contains(ip))) {
            return true;
        }
        logger.atWarn().setMessage("Not deleting an endpoint the journal names: HNS shows something else; "
                + "forgetting the journal entry").addKeyValue("id", id).addKeyValue("journaledIP", ip)
                .addKeyValue("hns", doc.get().isRemote() ? doc.get().ipAddresses() : "local").log();
        journal.forgetRemoteEndpoint(id);
        cache.deletedEndpoint(id);
        return false;
    }
}
