package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.plan.HnsIds;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code cleanup}: removes what winproxy owns (the load balancers and remote endpoints of its journal, and any
 * carrying the mark of winproxy's IDs, {@link HnsIds#isWinproxys}) and reports
 * the unowned load balancers and remote endpoints it leaves. {@code all} (migrating from kube-proxy, which does not
 * record what it created) removes every load balancer on the host, plus the owned remote endpoints. Local endpoints
 * are never touched. Every object is attempted even when others fail.
 */
public final class HnsCleanup {
    private static final Logger logger = LoggerFactory.getLogger(HnsCleanup.class);

    /** What a cleanup did; {@code failures} are one-line messages naming the object. */
    public record Report(List<String> deletedLoadBalancers, List<String> deletedRemoteEndpoints,
                         List<String> unownedLoadBalancers, List<String> unownedRemoteEndpoints,
                         List<String> failures) {
        public Report {
            deletedLoadBalancers = List.copyOf(deletedLoadBalancers);
            deletedRemoteEndpoints = List.copyOf(deletedRemoteEndpoints);
            unownedLoadBalancers = List.copyOf(unownedLoadBalancers);
            unownedRemoteEndpoints = List.copyOf(unownedRemoteEndpoints);
            failures = List.copyOf(failures);
        }

        public boolean succeeded() {
            return failures.isEmpty();
        }
    }

    private final HnsClient hns;
    private final OwnershipJournal journal;

    public HnsCleanup(HnsClient hns, OwnershipJournal journal) {
        this.hns = hns;
        this.journal = journal;
    }

    public Report run(boolean all) {
        List<String> deletedLbs = new ArrayList<>();
        List<String> deletedEps = new ArrayList<>();
        List<String> unownedLbs = new ArrayList<>();
        List<String> unownedEps = new ArrayList<>();
        List<String> failures = new ArrayList<>();

        for (String id : hns.listLoadBalancerIds()) {
            if (!all && !journal.ownsLoadBalancer(id) && !HnsIds.isWinproxys(id)) {
                unownedLbs.add(id);
                continue;
            }
            try {
                hns.deleteLoadBalancer(id);
                deletedLbs.add(id);
            } catch (HnsException e) {
                if (!e.isNotFound()) {
                    failures.add("load balancer " + id + ": " + e.getMessage());
                    continue;
                }
            }
            journal.forgetLoadBalancer(id);
        }
        // Owned LBs HNS no longer has are simply forgotten.
        for (String id : journal.loadBalancers().keySet()) {
            try {
                if (!deletedLbs.contains(id) && hns.getLoadBalancer(id).isEmpty()) {
                    journal.forgetLoadBalancer(id);
                }
            } catch (HnsException e) {
                // Only "not found" (an empty result) says it is gone; any other failure keeps the entry.
                failures.add("load balancer " + id + ": " + e.getMessage());
            }
        }

        for (String id : journal.remoteEndpoints().keySet()) {
            try {
                Optional<HostComputeEndpoint> endpoint = hns.getEndpoint(id);
                if (endpoint.isPresent() && !endpoint.get().isRemote()) {
                    failures.add("endpoint " + id + ": the journal lists it but HNS says it is local; left in place");
                    continue;
                }
                if (endpoint.isPresent()) {
                    hns.deleteEndpoint(id);
                    deletedEps.add(id);
                }
                journal.forgetRemoteEndpoint(id);
            } catch (HnsException e) {
                if (e.isNotFound()) {
                    journal.forgetRemoteEndpoint(id);
                } else {
                    failures.add("endpoint " + id + ": " + e.getMessage());
                }
            }
        }
        List<HostComputeNetwork> networks;
        try {
            networks = hns.listNetworks();
        } catch (HnsException e) {
            // What was deleted above is still recorded below; the unowned endpoints are not known.
            failures.add("networks: " + e.getMessage());
            networks = List.of();
        }
        for (HostComputeNetwork network : networks) {
            List<HostComputeEndpoint> endpoints;
            try {
                endpoints = hns.listEndpoints(network.id());
            } catch (HnsException e) {
                failures.add("endpoints of network " + network.name() + ": " + e.getMessage());
                continue;
            }
            for (HostComputeEndpoint endpoint : endpoints) {
                // The journal's IDs (deleted above) are lower-case; HNS may return them in upper case.
                if (!endpoint.isRemote() || deletedEps.contains(HnsIds.normalize(endpoint.id()))) {
                    continue;
                }
                if (!HnsIds.isWinproxys(endpoint.id())) {
                    unownedEps.add(endpoint.id());
                    continue;
                }
                // winproxy's by its ID's mark, though the journal does not list it (lost or cut).
                try {
                    hns.deleteEndpoint(endpoint.id());
                    deletedEps.add(endpoint.id());
                } catch (HnsException e) {
                    if (!e.isNotFound()) {
                        failures.add("endpoint " + endpoint.id() + ": " + e.getMessage());
                    }
                }
            }
        }
        try {
            journal.flush();
        } catch (UncheckedIOException e) {
            failures.add(e.getMessage());
        }
        logger.info("Cleanup removed {} load balancers and {} remote endpoints; left {} unowned load balancers and "
                + "{} unowned remote endpoints", deletedLbs.size(), deletedEps.size(), unownedLbs.size(),
                unownedEps.size());
        return new Report(deletedLbs, deletedEps, unownedLbs, unownedEps, failures);
    }
}
