package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.EndpointResolver;
import io.winproxy.policy.plan.Fingerprints;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanPriority;
import io.winproxy.policy.plan.PlanStep;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Executes a plan step by step. New objects get IDs winproxy chooses; the steps run in chunks, and before a chunk
 * runs, the objects it will create are recorded in the journal and the journal is flushed (write-ahead), so a crash
 * at any point leaves no object winproxy created without owning it (an ID recorded but never created is simply not
 * found by the next sync, and forgotten). What a step wrote is recorded with its fingerprint once it succeeded.
 * Endpoint creates share one network handle per apply. {@code HcnModifyLoadBalancer} is checked: when the endpoint
 * references HNS returns differ from the request (HNS 15.4 keeps the old backends, kubernetes#131466), modify is
 * switched off for the process and the load balancer is replaced.
 *
 * <p>Not thread-safe: the sync thread only.
 */
final class PlanExecutor {
    private static final Logger logger = LoggerFactory.getLogger(PlanExecutor.class);
    /** Steps per write-ahead chunk: one journal flush per chunk. */
    static final int CHUNK = 256;
    /**
     * Consecutive steps failing because HNS is unavailable after which an apply stops calling HNS: the rest of the
     * plan is deferred to the next sync instead of failing one step after the other.
     */
    static final int MAX_UNAVAILABLE_IN_A_ROW = 3;

    private final HnsClient hns;
    private final OwnershipJournal journal;
    private final ObjectBackoff backoff;
    private final Supplier<String> newId;
    private final HnsDataplane host;
    private boolean modifySupported;

    /** Built on first use (plans that only adopt or delete need none): 100,000 endpoints are not free. */
    private EndpointResolver resolver;
    private List<ObservedEndpoint> observedEndpoints = List.of();
    private Plan current;
    private final Set<String> deletedEndpoints = new HashSet<>();
    private NetworkSession session;
    private String networkId;
    /** The (immutable) policy list per provider address: one per node, shared by its endpoints' documents. */
    private final Map<String, List<HcnPolicy>> policiesByPa = new java.util.HashMap<>();
    /** IDs chosen for the create steps of the current chunk. */
    private final Map<PlanStep, String> reserved = new IdentityHashMap<>();
    /** Steps of the current apply that failed in a row because HNS is unavailable. */
    private int unavailableInARow;

    PlanExecutor(HnsClient hns, OwnershipJournal journal, ObjectBackoff backoff, Supplier<String> newId,
                 boolean modifySupported, HnsDataplane host) {
        this.hns = hns;
        this.journal = journal;
        this.backoff = backoff;
        this.newId = newId;
        this.modifySupported = modifySupported;
        this.host = host;
    }

    boolean modifySupported() {
        return modifySupported;
    }

    private static final class Counters {
        int created;
        int modified;
        int deleted;
        int adopted;
        int writes;
        int ran;
        final List<ApplyResult.StepFailure> failures = new ArrayList<>();
        final List<String> deferred = new ArrayList<>();
    }

    /**
     * Executes the plan's steps, most urgent first ({@link PlanPriority}). When {@code deadlineNanos} (of
     * {@code nanoTime}) passes, the steps not started yet are left for the next chunk ({@link ApplyResult#remaining});
     * at least one step always runs.
     */
    ApplyResult apply(Plan plan, String network, List<ObservedEndpoint> endpoints, long deadlineNanos,
                      LongSupplier nanoTime) {
        if (plan.steps().isEmpty()) {
            // Nothing to write; the journal may still hold what the observe forgot (objects gone from HNS).
            Counters c = new Counters();
            flush(c);
            return c.failures.isEmpty() ? ApplyResult.EMPTY : new ApplyResult(0, 0, 0, 0, 0, c.failures, List.of());
        }
        this.networkId = network;
        this.resolver = null;
        this.observedEndpoints = endpoints;
        this.current = plan;
        Counters c = new Counters();
        List<PlanStep> steps = PlanPriority.order(plan.steps());
        unavailableInARow = 0;
        int remaining = 0;
        try {
            for (int from = 0; from < steps.size() && remaining == 0; from += CHUNK) {
                List<PlanStep> chunk = steps.subList(from, Math.min(steps.size(), from + CHUNK));
                List<PlanStep> runnable = reserve(chunk, c);
                flush(c);
                for (int i = 0; i < runnable.size(); i++) {
                    PlanStep step = runnable.get(i);
                    if (hnsUnavailable()) {
                        postpone(step, c);
                    } else if (c.ran > 0 && nanoTime.getAsLong() - deadlineNanos > 0) {
                        // The bound is reached: what has not started waits for the next chunk.
                        for (PlanStep left : runnable.subList(i, runnable.size())) {
                            unreserveUnrun(left);
                        }
                        remaining = steps.size() - from - chunk.size() + runnable.size() - i;
                        break;
                    } else {
                        c.ran++;
                        run(step, c);
                    }
                }
            }
            if (hnsUnavailable()) {
                logger.warn("HNS is unavailable; {} step(s) of this plan wait for the next sync", c.deferred.size());
            }
        } finally {
            reserved.clear();
            resolver = null;
            deletedEndpoints.clear();
            observedEndpoints = List.of();
            current = null;
            if (session != null) {
                session.close();
                session = null;
            }
            flush(c);
        }
        return new ApplyResult(c.created, c.modified, c.deleted, c.adopted, c.writes, c.failures, c.deferred,
                remaining);
    }

    /** The steps of a chunk that may run now; records the objects they will create (write-ahead). */
    private List<PlanStep> reserve(List<PlanStep> chunk, Counters c) {
        List<PlanStep> runnable = new ArrayList<>(chunk.size());
        for (PlanStep step : chunk) {
            String object = PlanSteps.objectOf(step);
            boolean adopt = step instanceof PlanStep.AdoptLoadBalancer || step instanceof PlanStep.AdoptRemoteEndpoint;
            if (!adopt && (!backoff.ready(object) || hnsUnavailable())) {
                c.deferred.add(step.op() + " " + object);
                continue;
            }
            runnable.add(step);
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                // The ID of an owned endpoint with this IP that vanished (an HNS restart), so that HNS restoring it
                // cannot duplicate it; else a new one.
                String id = journal.reuseVanishedRemoteEndpointId(s.endpoint().ip())
                        .orElseGet(() -> HnsIds.normalize(newId.get()));
                reserved.put(step, id);
                journal.recordRemoteEndpoint(id, entry(s.endpoint()));
            } else if (step instanceof PlanStep.CreateLoadBalancer s) {
                reserveLoadBalancer(step, s.loadBalancer());
            } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
                reserveLoadBalancer(step, s.loadBalancer());
            } else if (step instanceof PlanStep.ModifyLoadBalancer s && !modifySupported) {
                reserveLoadBalancer(step, s.loadBalancer());
            }
        }
        return runnable;
    }

    private void reserveLoadBalancer(PlanStep step, DesiredLoadBalancer lb) {
        reserved.put(step, newLoadBalancerId(lb));
    }

    /**
     * The ID for a load balancer about to be created, recorded in the journal (flushed before the create): the ID of
     * an owned load balancer with the same key that vanished (an HNS restart; HNS may restore it with that ID, and
     * then refuses a duplicate), else a new one.
     */
    private String newLoadBalancerId(DesiredLoadBalancer lb) {
        String id = journal.reuseVanishedLoadBalancerId(lb.key().toString(), lb.key().family() == IpFamily.IPV6)
                .orElseGet(() -> HnsIds.normalize(newId.get()));
        journal.recordLoadBalancer(id, entry(lb, null));
        return id;
    }

    private boolean hnsUnavailable() {
        return unavailableInARow >= MAX_UNAVAILABLE_IN_A_ROW;
    }

    /** A step not run because HNS is unavailable: deferred; an ID reserved for it goes back to the vanished ones. */
    private void postpone(PlanStep step, Counters c) {
        c.deferred.add(step.op() + " " + PlanSteps.objectOf(step));
        String id = reserved.remove(step);
        if (id != null) {
            unreserve(step, id);
        }
    }

    private void unreserveUnrun(PlanStep step) {
        String id = reserved.remove(step);
        if (id != null) {
            unreserve(step, id);
        }
    }

    private void unreserve(PlanStep step, String id) {
        if (step instanceof PlanStep.CreateRemoteEndpoint) {
            journal.vanishedRemoteEndpoint(id);
        } else {
            journal.vanishedLoadBalancer(id);
        }
    }

    private void flush(Counters c) {
        try {
            journal.flush();
        } catch (UncheckedIOException e) {
            logger.error("{}", e.getMessage());
            c.failures.add(new ApplyResult.StepFailure("write-journal", journal.file().map(Object::toString)
                    .orElse(""), "", "", e.getMessage()));
        }
    }

    private void run(PlanStep step, Counters c) {
        String object = PlanSteps.objectOf(step);
        try {
            execute(step, c);
            backoff.succeeded(object);
            unavailableInARow = 0;
        } catch (HnsException e) {
            if (e.hresult() == HResults.ERROR_ALREADY_EXISTS) {
                if (adoptExisting(step, c)) {
                    backoff.succeeded(object);
                    unavailableInARow = 0;
                    return;
                }
                // The ID belongs to an object that is not the one meant (e.g. an endpoint of another network):
                // the reservation is dropped, so that the retry uses a fresh ID instead of colliding again.
                String taken = reserved.remove(step);
                if (taken != null) {
                    if (step instanceof PlanStep.CreateRemoteEndpoint) {
                        journal.forgetRemoteEndpoint(taken);
                    } else {
                        journal.forgetLoadBalancer(taken);
                    }
                }
            }
            unavailableInARow = e.isServiceUnavailable() ? unavailableInARow + 1 : 0;
            backoff.failed(object);
            release(step, e);
            logger.warn("{} {} failed: {} (attempt {}, will retry)", step.op(), object, e.getMessage(),
                    backoff.failures(object));
            c.failures.add(new ApplyResult.StepFailure(step.op(), object, PlanSteps.serviceOf(step),
                    e.hresultName(), e.getMessage()));
        } catch (UnresolvedBackendsException e) {
            release(step, null);
            logger.warn("{} {}: {}", step.op(), object, e.getMessage());
            c.failures.add(new ApplyResult.StepFailure(step.op(), object, PlanSteps.serviceOf(step), "",
                    e.getMessage()));
        }
    }

    /**
     * A create with the ID winproxy chose failed with {@code ERROR_ALREADY_EXISTS}: an object with that GUID exists,
     * so it is the one winproxy meant to create (an earlier attempt whose reply was lost, or an object HNS restored
     * after its restart under the ID winproxy reuses). It is kept as owned, never duplicated: an endpoint with the
     * desired IP is used as created; a load balancer is owned without a fingerprint, so that the next sync reads it
     * once and adopts or updates it (the step is reported deferred, so that sync comes soon). False when there is no
     * such object after all, or when it cannot be read.
     */
    private boolean adoptExisting(PlanStep step, Counters c) {
        String id = reserved.get(step);
        if (id == null) {
            return false;
        }
        try {
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                Optional<HostComputeEndpoint> existing = hns.getEndpoint(id);
                // Only the endpoint winproxy meant: remote, with the IP, and in the network being programmed (an
                // owned endpoint of another network, e.g. after --network-name changed, is not taken over).
                if (existing.isEmpty() || !existing.get().isRemote()
                        || !existing.get().ipAddresses().contains(s.endpoint().ip())
                        || existing.get().hostComputeNetwork() == null
                        || !existing.get().hostComputeNetwork().equalsIgnoreCase(networkId)) {
                    return false;
                }
                reserved.remove(step);
                ObservedEndpoint adopted = new ObservedEndpoint(id, List.of(s.endpoint().ip()), true,
                        s.endpoint().providerAddress(), s.endpoint().macAddress());
                resolver().add(adopted, true);
                host.created(adopted);
                c.adopted++;
                logger.info("Remote endpoint {} for {} exists already (ERROR_ALREADY_EXISTS); adopted it", id,
                        s.endpoint().ip());
                return true;
            }
            if (hns.getLoadBalancer(id).isEmpty()) {
                return false;
            }
        } catch (HnsException e) {
            return false;
        }
        reserved.remove(step);
        host.deletedLoadBalancer(id);
        c.adopted++;
        c.deferred.add("verify-load-balancer " + PlanSteps.objectOf(step));
        logger.info("Load balancer {} for {} exists already (ERROR_ALREADY_EXISTS); kept as owned and verified by "
                + "the next sync", id, PlanSteps.objectOf(step));
        return true;
    }

    /**
     * A create that failed: the ID reserved for it goes back to the vanished ones (so that a later create of the same
     * object reuses it). When HNS is unavailable or the call may have been carried out, the reservation is kept
     * instead: the next observe finds the object (owned) or remembers the ID as vanished. Otherwise an object that
     * exists after all (a lost reply) stays owned.
     */
    private void release(PlanStep step, HnsException e) {
        String id = reserved.remove(step);
        if (id == null) {
            return;
        }
        if (e != null && (e.isServiceUnavailable() || HResults.mayHaveCompleted(e.hresult()))) {
            return;
        }
        boolean exists = step instanceof PlanStep.CreateRemoteEndpoint ? hnsHasEndpoint(id) : hnsHas(id);
        if (!exists) {
            unreserve(step, id);
        }
    }

    /** Whether a load balancer exists (after an error, a create may have succeeded, e.g. a lost reply). */
    private boolean hnsHas(String id) {
        try {
            return hns.getLoadBalancer(id).isPresent();
        } catch (HnsException e) {
            return true;
        }
    }

    /** Whether an endpoint exists; true when HNS cannot say (the next observe decides). */
    private boolean hnsHasEndpoint(String id) {
        try {
            return hns.getEndpoint(id).isPresent();
        } catch (HnsException e) {
            return true;
        }
    }

    private void execute(PlanStep step, Counters c) {
        if (step instanceof PlanStep.CreateRemoteEndpoint s) {
            createRemoteEndpoint(reserved.get(step), s.endpoint(), c);
        } else if (step instanceof PlanStep.AdoptRemoteEndpoint s) {
            ObservedEndpoint adopted = new ObservedEndpoint(HnsIds.normalize(s.id()), List.of(s.endpoint().ip()),
                    true, s.endpoint().providerAddress(), s.endpoint().macAddress());
            journal.recordRemoteEndpoint(s.id(), entry(s.endpoint()));
            if (resolver != null) {
                resolver.remove(adopted.id(), adopted.ips());
                resolver.add(adopted, true);
            }
            host.adoptedEndpoint(adopted);
            c.adopted++;
        } else if (step instanceof PlanStep.AdoptLoadBalancer s) {
            DesiredLoadBalancer lb = s.loadBalancer();
            journal.recordLoadBalancer(s.id(), entry(lb, s.fingerprint().isEmpty() ? null : s.fingerprint()));
            host.wroteLoadBalancer(HnsIds.normalize(s.id()));
            c.adopted++;
        } else if (step instanceof PlanStep.CreateLoadBalancer s) {
            createLoadBalancer(reserved.get(step), s.loadBalancer(), c);
        } else if (step instanceof PlanStep.ModifyLoadBalancer s) {
            modifyLoadBalancer(step, s.id(), s.loadBalancer(), c);
        } else if (step instanceof PlanStep.ReplaceLoadBalancer s) {
            if (s.unowned()) {
                logger.info("Replacing unowned load balancer {} that collides with {} ({})", s.oldId(),
                        s.loadBalancer().key(), s.loadBalancer().service());
            }
            deleteLoadBalancer(s.oldId(), c);
            createLoadBalancer(reserved.get(step), s.loadBalancer(), c);
        } else if (step instanceof PlanStep.DeleteLoadBalancer s) {
            logger.info("Deleting load balancer {} ({})", s.id(), s.reason());
            deleteLoadBalancer(s.id(), c);
        } else if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
            deleteRemoteEndpoint(s.id(), s.ip(), c);
        }
    }

    private void createRemoteEndpoint(String id, DesiredRemoteEndpoint desired, Counters c) {
        if (session == null) {
            session = hns.openNetwork(networkId);
        }
        c.writes++;
        List<HcnPolicy> policies = policiesByPa.computeIfAbsent(desired.providerAddress(),
                HcnTranslator::providerAddressPolicies);
        session.createEndpoint(HcnTranslator.toHcn(desired, policies).withId(id));
        ObservedEndpoint created = new ObservedEndpoint(id, List.of(desired.ip()), true, desired.providerAddress(),
                desired.macAddress());
        resolver().add(created, true);
        host.created(created);
        c.created++;
        logger.debug("Created remote endpoint {} for {} (PA {})", id, desired.ip(),
                desired.providerAddress().isEmpty() ? "-" : desired.providerAddress());
    }

    private void createLoadBalancer(String id, DesiredLoadBalancer desired, Counters c) {
        List<String> refs = refs(desired);
        List<String> endpointIds = resolved(desired, refs);
        c.writes++;
        hns.createLoadBalancer(HcnTranslator.toHcn(desired, endpointIds).withId(id));
        journal.recordLoadBalancer(id, entry(desired, Fingerprints.loadBalancer(desired, refs)));
        host.wroteLoadBalancer(id);
        c.created++;
        logger.info("Created load balancer {} {} -> {} for {}", id, desired.key(), summary(desired.backends()),
                desired.service());
        checkAllResolved(desired, refs);
    }

    private void modifyLoadBalancer(PlanStep step, String id, DesiredLoadBalancer desired, Counters c) {
        if (!modifySupported) {
            deleteLoadBalancer(id, c);
            createLoadBalancer(reserved.get(step), desired, c);
            return;
        }
        List<String> refs = refs(desired);
        List<String> endpointIds = resolved(desired, refs);
        HostComputeLoadBalancer modified;
        try {
            c.writes++;
            modified = hns.modifyLoadBalancer(id, HcnTranslator.toHcn(desired, endpointIds).withId(id));
        } catch (HnsException e) {
            if (!e.isNotImplemented()) {
                throw e;
            }
            logger.info("HNS does not implement HcnModifyLoadBalancer; replacing load balancers from now on");
            fallBackToReplace(id, desired, c);
            return;
        }
        Set<String> held = new HashSet<>();
        modified.hostComputeEndpoints().forEach(e -> held.add(HnsIds.normalize(e)));
        if (!held.equals(new HashSet<>(endpointIds))) {
            logger.warn("HcnModifyLoadBalancer kept other backends than requested for {} (HNS {}; "
                    + "kubernetes#131466); replacing load balancers from now on", id,
                    hns.capabilities().version());
            fallBackToReplace(id, desired, c);
            return;
        }
        journal.recordLoadBalancer(id, entry(desired, Fingerprints.loadBalancer(desired, refs)));
        host.wroteLoadBalancer(HnsIds.normalize(id));
        c.modified++;
        logger.info("Modified load balancer {} {} -> {}", id, desired.key(), summary(desired.backends()));
        checkAllResolved(desired, refs);
    }

    private void fallBackToReplace(String id, DesiredLoadBalancer desired, Counters c) {
        modifySupported = false;
        String newIdValue = newLoadBalancerId(desired);
        flush(c);
        deleteLoadBalancer(id, c);
        createLoadBalancer(newIdValue, desired, c);
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
        journal.forgetLoadBalancer(id);
        host.deletedLoadBalancer(HnsIds.normalize(id));
    }

    private void deleteRemoteEndpoint(String id, String ip, Counters c) {
        String key = HnsIds.normalize(id);
        if (host.isLocalEndpoint(key)) {
            // The CNI owns local endpoints; a plan must never delete one.
            logger.error("Refusing to delete local endpoint {} ({})", id, ip);
            return;
        }
        try {
            c.writes++;
            hns.deleteEndpoint(id);
            c.deleted++;
            logger.debug("Deleted remote endpoint {} ({})", id, ip);
        } catch (HnsException e) {
            if (!e.isNotFound()) {
                throw e;
            }
        }
        journal.forgetRemoteEndpoint(id);
        if (resolver != null) {
            resolver.remove(key, List.of(ip));
        }
        deletedEndpoints.add(key);
        host.deletedEndpoint(key);
    }

    /** The resolver over the observed endpoints and those created since, built on first use. */
    private EndpointResolver resolver() {
        if (resolver == null) {
            resolver = new EndpointResolver(current.providerAddresses());
            for (ObservedEndpoint ep : observedEndpoints) {
                if (!deletedEndpoints.contains(ep.id())) {
                    resolver.add(ep, journal.ownsRemoteEndpoint(ep.id()));
                }
            }
            for (PlanStep step : current.steps()) {
                if (step instanceof PlanStep.DeleteRemoteEndpoint s) {
                    resolver.retire(s.id());
                }
            }
        }
        return resolver;
    }

    /** Per backend: the endpoint it resolves to now, or "". */
    private List<String> refs(DesiredLoadBalancer desired) {
        List<String> refs = new ArrayList<>(desired.backends().size());
        for (String ip : desired.backends()) {
            String id = resolver().resolve(ip);
            refs.add(id == null ? "" : id);
        }
        return refs;
    }

    /** The endpoint IDs of the backends that have one, in backend order. */
    private static List<String> resolved(DesiredLoadBalancer desired, List<String> refs) {
        List<String> ids = new ArrayList<>(refs.size());
        for (String ref : refs) {
            if (!ref.isEmpty()) {
                ids.add(ref);
            }
        }
        if (ids.isEmpty() && !desired.backends().isEmpty()) {
            throw new UnresolvedBackendsException("no HNS endpoint for any backend " + summary(desired.backends()));
        }
        return ids;
    }

    private static void checkAllResolved(DesiredLoadBalancer desired, List<String> refs) {
        List<String> missing = new ArrayList<>();
        for (int i = 0; i < refs.size(); i++) {
            if (refs.get(i).isEmpty()) {
                missing.add(desired.backends().get(i));
            }
        }
        if (!missing.isEmpty()) {
            throw new UnresolvedBackendsException("programmed without backends that have no HNS endpoint yet "
                    + summary(missing));
        }
    }

    /** A backend list for a log line: up to 8 IPs listed, a longer list summarised as its size ("1000 backends"). */
    static String summary(List<String> ips) {
        if (ips.size() <= 8) {
            return ips.toString();
        }
        return ips.size() + " backends";
    }

    static OwnershipJournal.LoadBalancerEntry entry(DesiredLoadBalancer lb, String fingerprint) {
        return new OwnershipJournal.LoadBalancerEntry(lb.service().toString(), lb.key().toString(),
                lb.key().family() == IpFamily.IPV6, fingerprint);
    }

    static OwnershipJournal.RemoteEndpointEntry entry(DesiredRemoteEndpoint ep) {
        return new OwnershipJournal.RemoteEndpointEntry(ep.ip(), ep.providerAddress(), ep.macAddress());
    }
}
