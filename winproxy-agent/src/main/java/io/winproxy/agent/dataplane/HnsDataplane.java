package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The adapter between the policy vocabulary and HNS: {@link #observe()} reads the host (the network by name, its
 * endpoints, every load balancer) and {@link #apply(Plan)} executes a plan step by step, resolving backend IPs to HNS
 * endpoint IDs (the CNI's local endpoints, existing remote ones and the ones the plan just created) and recording
 * what it creates in the {@link OwnershipJournal}.
 *
 * <p>Guarantees: a failing step never stops the others (it is reported and its object backs off); HNS errors are
 * classified by HRESULT; local endpoints are never deleted; {@code HcnModifyLoadBalancer} falls back to delete +
 * create on {@code E_NOTIMPL}, and the fallback is remembered. Load balancer documents are read cheaply (see
 * {@link LoadBalancerCache}), so drift is detected without re-reading every document every sync.
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
    private final LoadBalancerCache loadBalancers;
    private final ObjectBackoff backoff;
    private boolean modifySupported;
    private String sourceVip = "";

    private HostComputeNetwork network;
    private List<HostComputeEndpoint> endpoints = List.of();
    /** Endpoint IDs per IP, in observation then creation order (several when a stale PA is being replaced). */
    private final Map<String, List<String>> endpointIdsByIp = new HashMap<>();
    /** The provider address of the last remote endpoint winproxy created per IP: the one backends should use. */
    private final Map<String, String> wantedPaByIp = new HashMap<>();
    /** Normalized IDs of the remote endpoints the plan being applied deletes; backends avoid them. */
    private final Set<String> retiring = new HashSet<>();
    private final Map<String, ObservedEndpoint> endpointsById = new HashMap<>();

    /**
     * @param syncPeriod the period within which every owned load balancer is re-verified
     * @param nanoTime   the monotonic clock ({@code System::nanoTime} in production)
     */
    public HnsDataplane(HnsClient hns, String networkName, OwnershipJournal journal, Duration syncPeriod,
                        LongSupplier nanoTime) {
        this.hns = hns;
        this.networkName = networkName;
        this.journal = journal;
        this.loadBalancers = new LoadBalancerCache(syncPeriod, nanoTime);
        this.backoff = new ObjectBackoff(Duration.ofSeconds(1), maxBackoff(syncPeriod), nanoTime);
        this.modifySupported = hns.capabilities().modifyLoadBalancer();
    }

    private static Duration maxBackoff(Duration syncPeriod) {
        Duration cap = Duration.ofMinutes(2);
        return syncPeriod.compareTo(cap) > 0 ? syncPeriod : cap;
    }

    /**
     * Overlay only: keep a local endpoint holding {@code --source-vip} (upstream winkernel creates it when no
     * endpoint has that IP; the load balancers' SNAT address must exist on the host). Local, so never deleted.
     */
    public void setSourceVip(String ip) {
        this.sourceVip = ip == null ? "" : ip;
    }

    /** False once HNS answered {@code E_NOTIMPL} to a modify (or never supported it); plans then replace. */
    public boolean modifySupported() {
        return modifySupported;
    }

    /** The network seen by the last {@link #observe()}. */
    public Optional<HostComputeNetwork> network() {
        return Optional.ofNullable(network);
    }

    /** The network's endpoints as read by the last {@link #observe()} (local and remote, HCN documents). */
    public List<HostComputeEndpoint> endpoints() {
        return endpoints;
    }

    public OwnershipJournal journal() {
        return journal;
    }

    /**
     * Reads the host. A network whose ID changed since the last call (recreated, or HNS restarted) drops every
     * cached document, so the plan re-programs everything that is missing. Journal entries of objects that no
     * longer exist are forgotten.
     *
     * @throws HnsNetworkNotFoundException when the network does not exist
     * @throws HnsException                when HNS cannot be read
     */
    public ObservedState observe() {
        HostComputeNetwork current = hns.getNetworkByName(networkName)
                .orElseThrow(() -> new HnsNetworkNotFoundException(networkName));
        if (network != null && !network.id().equalsIgnoreCase(current.id())) {
            logger.warn("HNS network {} was recreated (ID {} -> {}); re-reading and re-programming everything",
                    networkName, network.id(), current.id());
            loadBalancers.clear();
        }
        network = current;

        List<HostComputeEndpoint> endpoints = new ArrayList<>(hns.listEndpoints(current.id()));
        ensureSourceVipEndpoint(current, endpoints);
        this.endpoints = List.copyOf(endpoints);
        endpointIdsByIp.clear();
        endpointsById.clear();
        retiring.clear();
        Map<String, List<String>> ipsById = new HashMap<>();
        List<ObservedEndpoint> observedEndpoints = new ArrayList<>(endpoints.size());
        for (HostComputeEndpoint endpoint : endpoints) {
            ObservedEndpoint observed = HcnTranslator.toObserved(endpoint);
            observedEndpoints.add(observed);
            endpointsById.put(normalize(observed.id()), observed);
            ipsById.put(normalize(observed.id()), observed.ips());
            for (String ip : observed.ips()) {
                endpointIdsByIp.computeIfAbsent(ip, k -> new ArrayList<>()).add(observed.id());
            }
        }
        wantedPaByIp.keySet().retainAll(endpointIdsByIp.keySet());
        for (String owned : journal.remoteEndpoints().keySet()) {
            if (!endpointsById.containsKey(normalize(owned))) {
                journal.forgetRemoteEndpoint(owned);
            }
        }

        List<HostComputeLoadBalancer> lbs = loadBalancers.refresh(hns, journal::ownsLoadBalancer);
        Set<String> lbIds = new HashSet<>();
        List<ObservedLoadBalancer> observedLbs = new ArrayList<>(lbs.size());
        for (HostComputeLoadBalancer lb : lbs) {
            lbIds.add(lb.id());
            observedLbs.add(HcnTranslator.toObserved(lb, ipsById));
        }
        for (String owned : journal.loadBalancers().keySet()) {
            if (!lbIds.contains(owned)) {
                logger.info("Owned load balancer {} ({}) is gone from HNS; it will be re-created if still desired",
                        owned, journal.loadBalancer(owned).map(OwnershipJournal.LoadBalancerEntry::service).orElse(""));
                journal.forgetLoadBalancer(owned);
            }
        }
        return new ObservedState(observedEndpoints, observedLbs);
    }

    private void ensureSourceVipEndpoint(HostComputeNetwork current, List<HostComputeEndpoint> endpoints) {
        if (sourceVip.isEmpty() || !current.isOverlay()) {
            return;
        }
        boolean present = endpoints.stream().anyMatch(e -> e.ipConfigurations().stream()
                .anyMatch(c -> sourceVip.equals(c.ipAddress())));
        if (!present) {
            HostComputeEndpoint created = hns.createEndpoint(current.id(), HostComputeEndpoint.local(current.id(),
                    SOURCE_VIP_ENDPOINT_NAME, sourceVip, 32, null));
            logger.info("Created the source VIP endpoint {} for {} on network {}", created.id(), sourceVip,
                    networkName);
            endpoints.add(created);
        }
    }

    /**
     * The endpoint a backend IP resolves to, or null. When several endpoints hold the IP, the best wins, in order: not
     * being deleted by the current plan; remote over local (as upstream does); a remote one whose provider address is
     * the one winproxy last created for the IP (a PA change leaves the old endpoint beside the new one until every
     * load balancer has moved); owned over unowned; the newest.
     */
    private String endpointIdFor(String ip) {
        List<String> ids = endpointIdsByIp.get(ip);
        if (ids == null || ids.isEmpty()) {
            return null;
        }
        String wantedPa = wantedPaByIp.get(ip);
        String best = null;
        int bestRank = -1;
        for (String id : ids) {
            ObservedEndpoint ep = endpointsById.get(normalize(id));
            int rank = 0;
            if (!retiring.contains(normalize(id))) {
                rank += 8;
            }
            if (ep != null && ep.remote()) {
                rank += 4;
                if (wantedPa != null && wantedPa.equalsIgnoreCase(ep.providerAddress())) {
                    rank += 2;
                }
            }
            if (journal.ownsRemoteEndpoint(id)) {
                rank += 1;
            }
            if (rank >= bestRank) {
                best = id;
                bestRank = rank;
            }
        }
        return best;
    }

    /**
     * Executes the steps in order. Each step is independent: a failure is recorded, its object backs off, and the
     * next step runs. The journal is flushed at the end.
     *
     * @throws IllegalStateException when called before {@link #observe()}
     */
    public ApplyResult apply(Plan plan) {
        if (network == null) {
            throw new IllegalStateException("apply before observe");
        }
        Counters c = new Counters();
        retiring.clear();
        for (PlanStep step : plan.steps()) {
            if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
                retiring.add(normalize(s.id()));
            }
        }
        for (PlanStep step : plan.steps()) {
            String object = PlanSteps.objectOf(step);
            if (!(step instanceof PlanStep.AdoptLoadBalancer) && !backoff.ready(object)) {
                c.deferred.add(step.op() + " " + object);
                continue;
            }
            try {
                execute(step, c);
                backoff.succeeded(object);
            } catch (HnsException e) {
                backoff.failed(object);
                logger.warn("{} {} failed: {} (attempt {}, will retry)", step.op(), object, e.getMessage(),
                        backoff.failures(object));
                c.failures.add(new ApplyResult.StepFailure(step.op(), object, PlanSteps.serviceOf(step), e.hresultName(),
                        e.getMessage()));
            } catch (UnresolvedBackendsException e) {
                logger.warn("{} {}: {}", step.op(), object, e.getMessage());
                c.failures.add(new ApplyResult.StepFailure(step.op(), object, PlanSteps.serviceOf(step), "",
                        e.getMessage()));
            }
        }
        try {
            journal.flush();
        } catch (UncheckedIOException e) {
            logger.error("{}", e.getMessage());
            c.failures.add(new ApplyResult.StepFailure("write-journal", journal.file().map(Object::toString)
                    .orElse(""), "", "", e.getMessage()));
        }
        if (!plan.unownedLoadBalancerIds().isEmpty()) {
            logger.debug("Unowned load balancers left in place: {}", plan.unownedLoadBalancerIds());
        }
        return new ApplyResult(c.created, c.modified, c.deleted, c.adopted, c.writes, c.failures, c.deferred);
    }

    private static final class Counters {
        int created;
        int modified;
        int deleted;
        int adopted;
        int writes;
        final List<ApplyResult.StepFailure> failures = new ArrayList<>();
        final List<String> deferred = new ArrayList<>();
    }

    private void execute(PlanStep step, Counters c) {
        if (step instanceof PlanStep.CreateRemoteEndpoint s) {
            createRemoteEndpoint(s.endpoint(), c);
        } else if (step instanceof PlanStep.AdoptLoadBalancer s) {
            DesiredLoadBalancer lb = s.loadBalancer();
            journal.recordLoadBalancer(s.id(), lb.service().toString(), lb.key().toString());
            c.adopted++;
        } else if (step instanceof PlanStep.CreateLoadBalancer s) {
            createLoadBalancer(s.loadBalancer(), c);
        } else if (step instanceof PlanStep.ModifyLoadBalancer s) {
            modifyLoadBalancer(s.id(), s.loadBalancer(), c);
        } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
            if (s.unowned()) {
                logger.info("Replacing unowned load balancer {} that collides with {} ({})", s.oldId(),
                        s.loadBalancer().key(), s.loadBalancer().service());
            }
            deleteLoadBalancer(s.oldId(), c);
            createLoadBalancer(s.loadBalancer(), c);
        } else if (step instanceof PlanStep.DeleteLoadBalancer s) {
            logger.info("Deleting load balancer {} ({})", s.id(), s.reason());
            deleteLoadBalancer(s.id(), c);
        } else if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
            deleteRemoteEndpoint(s.id(), s.ip(), c);
        }
    }

    private void createRemoteEndpoint(DesiredRemoteEndpoint desired, Counters c) {
        c.writes++;
        HostComputeEndpoint created = hns.createEndpoint(network.id(), HcnTranslator.toHcn(desired));
        journal.recordRemoteEndpoint(created.id(), desired.ip());
        ObservedEndpoint observed = HcnTranslator.toObserved(created);
        endpointsById.put(normalize(created.id()), observed);
        endpointIdsByIp.computeIfAbsent(desired.ip(), k -> new ArrayList<>()).add(created.id());
        wantedPaByIp.put(desired.ip(), desired.providerAddress());
        c.created++;
        logger.info("Created remote endpoint {} for {} (PA {})", created.id(), desired.ip(),
                desired.providerAddress().isEmpty() ? "-" : desired.providerAddress());
    }

    private void createLoadBalancer(DesiredLoadBalancer desired, Counters c) {
        List<String> endpointIds = resolve(desired);
        c.writes++;
        HostComputeLoadBalancer created = hns.createLoadBalancer(HcnTranslator.toHcn(desired, endpointIds));
        journal.recordLoadBalancer(created.id(), desired.service().toString(), desired.key().toString());
        loadBalancers.put(created);
        c.created++;
        logger.info("Created load balancer {} {} -> {} for {}", created.id(), desired.key(), desired.backends(),
                desired.service());
        checkAllResolved(desired, endpointIds);
    }

    private void modifyLoadBalancer(String id, DesiredLoadBalancer desired, Counters c) {
        if (!modifySupported) {
            deleteLoadBalancer(id, c);
            createLoadBalancer(desired, c);
            return;
        }
        List<String> endpointIds = resolve(desired);
        try {
            c.writes++;
            HostComputeLoadBalancer modified = hns.modifyLoadBalancer(id, HcnTranslator.toHcn(desired, endpointIds)
                    .withId(id));
            loadBalancers.put(modified.id() == null ? modified.withId(id) : modified);
            journal.recordLoadBalancer(id, desired.service().toString(), desired.key().toString());
            c.modified++;
            logger.info("Modified load balancer {} {} -> {}", id, desired.key(), desired.backends());
        } catch (HnsException e) {
            if (!e.isNotImplemented()) {
                throw e;
            }
            logger.info("HNS does not implement HcnModifyLoadBalancer; replacing load balancers from now on");
            modifySupported = false;
            deleteLoadBalancer(id, c);
            createLoadBalancer(desired, c);
            return;
        }
        checkAllResolved(desired, endpointIds);
    }

    private void deleteLoadBalancer(String id, Counters c) {
        try {
            c.writes++;
            hns.deleteLoadBalancer(id);
            c.deleted++;
        } catch (HnsException e) {
            if (!e.isNotFound()) {
                throw e;
            }
            logger.debug("Load balancer {} was already gone", id);
        }
        loadBalancers.remove(id);
        journal.forgetLoadBalancer(id);
    }

    private void deleteRemoteEndpoint(String id, String ip, Counters c) {
        ObservedEndpoint observed = endpointsById.get(normalize(id));
        if (observed != null && !observed.remote()) {
            // The CNI owns local endpoints; a plan must never delete one.
            logger.error("Refusing to delete local endpoint {} ({})", id, ip);
            return;
        }
        try {
            c.writes++;
            hns.deleteEndpoint(id);
            c.deleted++;
            logger.info("Deleted remote endpoint {} ({})", id, ip);
        } catch (HnsException e) {
            if (!e.isNotFound()) {
                throw e;
            }
        }
        journal.forgetRemoteEndpoint(id);
        endpointsById.remove(normalize(id));
        List<String> ids = endpointIdsByIp.get(ip);
        if (ids != null) {
            ids.removeIf(other -> normalize(other).equals(normalize(id)));
            if (ids.isEmpty()) {
                endpointIdsByIp.remove(ip);
                wantedPaByIp.remove(ip);
            }
        }
    }

    /** The endpoint IDs of the backends that have one, in backend order. */
    private List<String> resolve(DesiredLoadBalancer desired) {
        List<String> ids = new ArrayList<>(desired.backends().size());
        for (String ip : desired.backends()) {
            String id = endpointIdFor(ip);
            if (id != null) {
                ids.add(id);
            }
        }
        if (ids.isEmpty() && !desired.backends().isEmpty()) {
            throw new UnresolvedBackendsException("no HNS endpoint for any backend " + desired.backends());
        }
        return ids;
    }

    private void checkAllResolved(DesiredLoadBalancer desired, List<String> endpointIds) {
        if (endpointIds.size() < desired.backends().size()) {
            List<String> missing = desired.backends().stream().filter(ip -> endpointIdFor(ip) == null).toList();
            throw new UnresolvedBackendsException("programmed without backends that have no HNS endpoint yet "
                    + missing);
        }
    }

    private static String normalize(String id) {
        return id == null ? "" : id.toLowerCase(Locale.ROOT);
    }
}
