package io.winproxy.agent.dataplane;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HcnPolicy;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.plan.Fingerprints;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedEndpoint;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanPriority;
import io.winproxy.policy.plan.PlanStep;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One apply of one plan: the state that lives as long as the apply (the resolver, the network handle, the IDs reserved
 * for the current chunk, the counters). Steps run in {@link PlanPriority} order, in chunks of
 * {@link PlanExecutor#CHUNK}: before a chunk runs, the objects it creates are recorded in the journal and the journal
 * is flushed (write-ahead). A load-balancer step waits (deferred) while a remote endpoint its backends need is still to
 * be created by this plan and has not been. Each step is dispatched by {@link PlanStep.Visitor}.
 *
 * <p>Longer than most classes here (about 550 lines) by choice: it is the one place that says what each of the eight
 * kinds of step does to HNS, the journal and the cache; the write-ahead records ({@link Reservations}), backend
 * resolution ({@link BackendRefs}), the ID checks ({@link IdChoice}), the backend limit ({@link BackendProbe}) and the
 * deletion check ({@link DeletionGuard}) are
 * apart.
 *
 * <p>Used once, by the sync thread.
 */
final class Execution implements PlanStep.Visitor<Void> {
    private static final Logger logger = LoggerFactory.getLogger(Execution.class);

    private final PlanExecutor ex;
    private final Plan plan;
    private final String networkId;
    private final ApplyResult.Builder result = new ApplyResult.Builder();
    /** IDs reserved (journaled) for the create steps of the current chunk. */
    private final Reservations reserved;
    /** Remote-endpoint IPs this plan creates that are not created yet: load balancers needing them wait. */
    private final Set<String> endpointsToCreate = new HashSet<>();
    private final BackendRefs backends;
    private NetworkSession session;
    private int unavailableInARow;
    /** Remote endpoints this apply deleted from HNS, and the first few IPs: summarised in one info line. */
    private int deletedEndpoints;
    private final List<String> deletedEndpointIps = new ArrayList<>();

    Execution(PlanExecutor ex, Plan plan, String networkId, ObservedState observed) {
        this.ex = ex;
        this.plan = plan;
        this.networkId = networkId;
        this.backends = new BackendRefs(plan, observed, ex.journal);
        this.reserved = new Reservations(ex.journal, ex.ids, ex.hns);
    }

    ApplyResult run(long deadlineNanos, LongSupplier nanoTime) {
        if (plan.steps().isEmpty()) {
            // Nothing to write; the journal may still hold what the observe forgot (objects gone from HNS).
            flush();
            return result.build(0);
        }
        // Which endpoint each backend references is found now, while the journal is as the observe left it (the
        // reservations below change it) and the observed state's lookup answers by IP.
        backends.prepare();
        List<PlanStep> steps = PlanPriority.order(plan.steps());
        for (PlanStep step : steps) {
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                endpointsToCreate.add(s.endpoint().ip());
            }
        }
        int remaining = 0;
        try {
            for (int from = 0; from < steps.size() && remaining == 0; from += PlanExecutor.CHUNK) {
                List<PlanStep> chunk = steps.subList(from, Math.min(steps.size(), from + PlanExecutor.CHUNK));
                List<PlanStep> runnable = reserve(chunk);
                if (!flush()) {
                    // Write-ahead: nothing is created unless its reservation is durable.
                    runnable = withoutCreates(runnable);
                }
                for (int i = 0; i < runnable.size(); i++) {
                    PlanStep step = runnable.get(i);
                    if (hnsUnavailable()) {
                        postpone(step);
                    } else if (ex.stopping() || (result.ran > 0 && nanoTime.getAsLong() - deadlineNanos > 0)) {
                        // The bound is reached (or the agent stops): what has not started waits for the next apply.
                        for (PlanStep left : runnable.subList(i, runnable.size())) {
                            reserved.unused(left);
                        }
                        remaining = steps.size() - from - chunk.size() + runnable.size() - i;
                        break;
                    } else if (waitsForEndpoints(step)) {
                        postpone(step);
                    } else {
                        result.ran++;
                        run(step);
                    }
                }
            }
            if (hnsUnavailable()) {
                logger.atWarn().setMessage("HNS is unavailable; the rest of this plan waits for the next sync")
                        .addKeyValue("steps", result.deferred.size()).log();
            }
        } finally {
            if (session != null) {
                session.close();
            }
            flush();
            logDeletedEndpoints();
        }
        return result.build(remaining);
    }

    /**
     * Every HNS delete of a remote endpoint shows at info level: one line per apply (the per-endpoint lines are at
     * debug), with the count and the first IPs.
     */
    private void logDeletedEndpoints() {
        if (deletedEndpoints == 0) {
            return;
        }
        logger.atInfo().setMessage("Deleted remote endpoints no Service needs").addKeyValue("count", deletedEndpoints)
                .addKeyValue("ips", String.join(",", deletedEndpointIps)
                        + (deletedEndpoints > deletedEndpointIps.size() ? ",..." : "")).log();
    }

    // ---- write-ahead ------------------------------------------------------------------------------------------

    /** The steps of a chunk that may run now; records the objects they will create (write-ahead). */
    private List<PlanStep> reserve(List<PlanStep> chunk) {
        List<PlanStep> runnable = new ArrayList<>(chunk.size());
        for (PlanStep step : chunk) {
            if (step.writes() && (!ex.backoff.ready(step.object()) || hnsUnavailable())) {
                result.deferred.add(step.op() + " " + step.object());
                continue;
            }
            runnable.add(step);
            reserved.reserve(step, !ex.modifySupported());
        }
        return runnable;
    }

    /** The journal could not be written: the chunk's creates are dropped from it and deferred; the rest runs. */
    private List<PlanStep> withoutCreates(List<PlanStep> runnable) {
        List<PlanStep> out = new ArrayList<>(runnable.size());
        for (PlanStep step : runnable) {
            if (!reserved.drop(step)) {
                out.add(step);
                continue;
            }
            result.deferred.add(step.op() + " " + step.object());
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                endpointsToCreate.remove(s.endpoint().ip());
            }
        }
        result.journalBlocked = true;
        return out;
    }

    /** Flushes the journal; false (and a failure reported) when it cannot be written. */
    private boolean flush() {
        try {
            ex.journal.flush();
            return true;
        } catch (UncheckedIOException e) {
            result.failures.add(new ApplyResult.StepFailure("write-journal", ex.journal.file().map(Object::toString)
                    .orElse(""), "", "", e.getMessage()));
            return false;
        }
    }

    private boolean hnsUnavailable() {
        return unavailableInARow >= PlanExecutor.MAX_UNAVAILABLE_IN_A_ROW;
    }

    /** A step not run now: deferred; an ID reserved for it goes back to the vanished ones. */
    private void postpone(PlanStep step) {
        result.deferred.add(step.op() + " " + step.object());
        reserved.unused(step);
    }

    /** Whether a load-balancer step needs a remote endpoint this plan has yet to create. */
    private boolean waitsForEndpoints(PlanStep step) {
        if (endpointsToCreate.isEmpty() || !(step instanceof PlanStep.LoadBalancerStep lb) || !step.writes()) {
            return false;
        }
        for (String ip : lb.loadBalancer().backends()) {
            if (endpointsToCreate.contains(ip)) {
                return true;
            }
        }
        return false;
    }

    // ---- running a step ---------------------------------------------------------------------------------------

    private void run(PlanStep step) {
        String object = step.object();
        try {
            step.accept(this);
            ex.backoff.succeeded(object);
            unavailableInARow = 0;
        } catch (HnsException e) {
            if (e.hresult() == HResults.ERROR_ALREADY_EXISTS && adoptExisting(step)) {
                ex.backoff.succeeded(object);
                unavailableInARow = 0;
                return;
            }
            unavailableInARow = e.isServiceUnavailable() ? unavailableInARow + 1 : 0;
            ex.backoff.failed(object);
            reserved.failed(step, e);
            HnsErrors.Diagnosis d = HnsErrors.diagnose(e);
            logger.atWarn().setMessage("HNS step failed; will retry").addKeyValue("op", step.op())
                    .addKeyValue("object", object).addKeyValue("service", step.service())
                    .addKeyValue("hresult", d.hex()).addKeyValue("name", d.name()).addKeyValue("cause", d.cause())
                    .addKeyValue("attempt", ex.backoff.failures(object)).addKeyValue("err", e.getMessage()).log();
            result.failures.add(new ApplyResult.StepFailure(step.op(), object, step.service(), e.hresultName(),
                    e.getMessage()));
        } catch (UnresolvedBackendsException e) {
            reserved.failed(step, null);
            logger.atWarn().setMessage("Load balancer programmed without some backends").addKeyValue("op", step.op())
                    .addKeyValue("object", object).addKeyValue("service", step.service())
                    .addKeyValue("err", e.getMessage()).log();
            result.failures.add(new ApplyResult.StepFailure(step.op(), object, step.service(), "", e.getMessage()));
        } finally {
            if (step instanceof PlanStep.CreateRemoteEndpoint s) {
                // Done with it, created or not: load balancers needing it no longer wait for it in this apply.
                endpointsToCreate.remove(s.endpoint().ip());
            }
        }
    }

    /**
     * A create failed with {@code ERROR_ALREADY_EXISTS}. HNS answers so in two cases: an object with the GUID sent
     * exists (an earlier attempt whose reply was lost, or an object HNS restored after its restart under the ID
     * winproxy reuses), and, for a load balancer, when another load balancer already has the same frontend
     * (kubernetes#139519; HNS then reports a zero GUID). In the first case the object is kept as owned, never
     * duplicated: an endpoint with the desired IP is used as created; a load balancer is owned without a fingerprint,
     * so that the next sync reads it once and adopts or updates it. False in the second case (the next observe reads
     * the colliding load balancer and the plan replaces it), and when the object cannot be read; the reservation is
     * then dropped.
     */
    private boolean adoptExisting(PlanStep step) {
        String id = reserved.of(step);
        if (id == null) {
            return false;
        }
        boolean adopted;
        try {
            adopted = step instanceof PlanStep.CreateRemoteEndpoint s
                    ? adoptExistingEndpoint(id, s.endpoint())
                    : adoptExistingLoadBalancer(id, step);
        } catch (HnsException e) {
            adopted = false;
        }
        if (adopted) {
            reserved.used(step);
        } else {
            // The GUID is not the object meant (an endpoint of another network), or HNS refused a duplicate
            // frontend: the reservation is dropped, so that a retry uses a fresh ID.
            reserved.drop(step);
            if (!(step instanceof PlanStep.CreateRemoteEndpoint)) {
                logger.atInfo().setMessage("HNS refused a load balancer: another one has the same frontend "
                        + "(ERROR_ALREADY_EXISTS, kubernetes#139519); the next sync reads it and replaces it")
                        .addKeyValue("loadBalancer", step.object()).addKeyValue("service", step.service()).log();
            }
        }
        return adopted;
    }

    private boolean adoptExistingEndpoint(String id, DesiredRemoteEndpoint desired) {
        Optional<HostComputeEndpoint> existing = ex.hns.getEndpoint(id);
        // Only the endpoint winproxy meant: remote, with the IP, and in the network being programmed (an owned
        // endpoint of another network, e.g. after --network-name changed, is not taken over).
        if (existing.isEmpty() || !existing.get().isRemote() || !existing.get().ipAddresses().contains(desired.ip())
                || existing.get().hostComputeNetwork() == null
                || !existing.get().hostComputeNetwork().equalsIgnoreCase(networkId)) {
            return false;
        }
        createdEndpoint(id, desired);
        result.adopted++;
        logger.info("Remote endpoint {} for {} exists already under the ID winproxy chose; adopted it", id,
                desired.ip());
        return true;
    }

    private boolean adoptExistingLoadBalancer(String id, PlanStep step) {
        if (ex.hns.getLoadBalancer(id).isEmpty()) {
            return false;
        }
        ex.cache.wroteLoadBalancer(id, null);
        result.adopted++;
        result.deferred.add("verify-load-balancer " + step.object());
        logger.info("Load balancer {} for {} exists already under the ID winproxy chose; kept as owned and verified "
                + "by the next sync", id, step.object());
        return true;
    }

    // ---- the steps ----------------------------------------------------------------------------------------------

    @Override
    public Void createRemoteEndpoint(PlanStep.CreateRemoteEndpoint step) {
        String id = reserved.of(step);
        DesiredRemoteEndpoint desired = step.endpoint();
        if (session == null) {
            session = ex.hns.openNetwork(networkId);
        }
        List<HcnPolicy> policies = ex.policiesByPa.computeIfAbsent(desired.providerAddress(),
                HcnTranslator::providerAddressPolicies);
        HostComputeEndpoint doc = HcnTranslator.toHcn(desired, policies);
        String actual = ex.ids.create(IdChoice.Kind.ENDPOINT, desired.ip(), id,
                sent -> session.createEndpoint(sent == null ? doc : doc.withId(sent)).id(),
                got -> ex.hns.getEndpoint(got).isPresent(), () -> result.writes++);
        reserved.used(step);
        if (!actual.equals(id)) {
            ex.journal.forgetRemoteEndpoint(id);
            ex.journal.recordRemoteEndpoint(actual, PlanExecutor.entry(desired));
        }
        createdEndpoint(actual, desired);
        result.created++;
        logger.debug("Created remote endpoint {} for {} (PA {})", actual, desired.ip(),
                desired.providerAddress().isEmpty() ? "-" : desired.providerAddress());
        return null;
    }

    private void createdEndpoint(String id, DesiredRemoteEndpoint desired) {
        backends.owned(new ObservedEndpoint(id, List.of(desired.ip()), true, desired.providerAddress(),
                desired.macAddress()), false);
        ex.cache.createdEndpoint(id);
        ex.journal.settled(id);
    }

    @Override
    public Void adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint step) {
        String id = HnsIds.normalize(step.id());
        ObservedEndpoint adopted = new ObservedEndpoint(id, List.of(step.endpoint().ip()), true,
                step.endpoint().providerAddress(), step.endpoint().macAddress());
        ex.journal.recordRemoteEndpoint(id, PlanExecutor.entry(step.endpoint()));
        backends.owned(adopted, true);
        ex.cache.adoptedEndpoint(id);
        result.adopted++;
        return null;
    }

    @Override
    public Void adoptLoadBalancer(PlanStep.AdoptLoadBalancer step) {
        String id = HnsIds.normalize(step.id());
        OwnershipJournal.LoadBalancerEntry entry = PlanExecutor.entry(step.loadBalancer(),
                step.fingerprint().isEmpty() ? null : step.fingerprint());
        ex.journal.recordLoadBalancer(id, entry);
        ex.cache.wroteLoadBalancer(id, HostObserver.journaled(id, entry));
        result.adopted++;
        return null;
    }

    @Override
    public Void createLoadBalancer(PlanStep.CreateLoadBalancer step) {
        createLoadBalancer(reserved.of(step), step.loadBalancer());
        reserved.used(step);
        return null;
    }

    @Override
    public Void modifyLoadBalancer(PlanStep.ModifyLoadBalancer step) {
        if (!ex.modifySupported()) {
            deleteLoadBalancer(step.id());
            createLoadBalancer(reserved.of(step), step.loadBalancer());
            reserved.used(step);
            return null;
        }
        String id = step.id();
        ex.probe.write(step.loadBalancer(), this::localIps, false, lb -> modifyOnce(id, lb), ex.ids.chosen());
        return null;
    }

    private void modifyOnce(String id, DesiredLoadBalancer desired) {
        List<String> refs = backends.refs(desired);
        List<String> endpointIds = BackendRefs.resolved(desired, refs);
        HostComputeLoadBalancer modified;
        try {
            result.writes++;
            modified = ex.hns.modifyLoadBalancer(id, HcnTranslator.toHcn(desired, endpointIds).withId(id));
        } catch (HnsException e) {
            if (!e.isNotImplemented()) {
                throw e;
            }
            logger.info("HNS does not implement HcnModifyLoadBalancer; replacing load balancers from now on");
            fallBackToReplace(id, desired);
            return;
        }
        Set<String> held = new HashSet<>();
        modified.hostComputeEndpoints().forEach(e -> held.add(HnsIds.normalize(e)));
        if (!held.equals(new HashSet<>(endpointIds))) {
            logger.warn("HcnModifyLoadBalancer kept other backends than requested for {} (HNS {}; "
                    + "kubernetes#131466); replacing load balancers from now on", id,
                    ex.hns.capabilities().version());
            fallBackToReplace(id, desired);
            return;
        }
        recordWritten(HnsIds.normalize(id), desired, refs);
        result.modified++;
        logger.atInfo().setMessage("Modified load balancer").addKeyValue("id", id)
                .addKeyValue("loadBalancer", desired.key()).addKeyValue("backends", BackendRefs.summary(desired.backends()))
                .log();
        BackendRefs.checkAllResolved(desired, refs);
    }

    private void fallBackToReplace(String id, DesiredLoadBalancer desired) {
        ex.modifyUntrusted();
        String newId = reserved.loadBalancer(desired);
        if (!flush()) {
            reserved.dropLoadBalancer(newId);
            result.deferred.add("replace-load-balancer " + desired.key());
            return;
        }
        deleteLoadBalancer(id);
        createLoadBalancer(newId, desired);
    }

    @Override
    public Void replaceLoadBalancer(PlanStep.ReplaceLoadBalancer step) {
        if (step.unowned()) {
            logger.atInfo().setMessage("Replacing an unowned load balancer that collides").addKeyValue("id", step.oldId())
                    .addKeyValue("loadBalancer", step.loadBalancer().key())
                    .addKeyValue("service", step.loadBalancer().service()).log();
        }
        deleteLoadBalancer(step.oldId());
        createLoadBalancer(reserved.of(step), step.loadBalancer());
        reserved.used(step);
        return null;
    }

    @Override
    public Void deleteLoadBalancer(PlanStep.DeleteLoadBalancer step) {
        if (!ex.guard.mayDeleteLoadBalancer(step.id())) {
            return null;
        }
        logger.atInfo().setMessage("Deleting load balancer").addKeyValue("id", step.id())
                .addKeyValue("reason", step.reason()).log();
        deleteLoadBalancer(step.id());
        return null;
    }

    @Override
    public Void deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint step) {
        String key = HnsIds.normalize(step.id());
        if (ex.cache.isLocalEndpoint(key)) {
            // The CNI owns local endpoints; a plan must never delete one.
            logger.atError().setMessage("Refusing to delete a local endpoint").addKeyValue("id", step.id())
                .addKeyValue("ip", step.ip()).log();
            return null;
        }
        if (!ex.guard.mayDeleteEndpoint(key, step.ip())) {
            return null;
        }
        if (!ex.journal.ownsRemoteEndpoint(key) && !HnsIds.isWinproxys(key)) {
            // Only a remote endpoint shadowing a local endpoint's IP is planned so (kubernetes PR #138000).
            logger.atInfo().setMessage("Deleting a remote endpoint winproxy does not own: a local endpoint has its IP "
                    + "(kubernetes#138000)").addKeyValue("id", step.id()).addKeyValue("ip", step.ip()).log();
        }
        try {
            result.writes++;
            ex.hns.deleteEndpoint(step.id());
            result.deleted++;
            if (deletedEndpoints++ < 8) {
                deletedEndpointIps.add(step.ip());
            }
            logger.debug("Deleted remote endpoint {} ({})", step.id(), step.ip());
        } catch (HnsException e) {
            if (ByIdCalls.deleteUnsettled(e, "endpoint", key)) {
                return null;
            }
            if (!e.isNotFound()) {
                throw e;
            }
        }
        ex.journal.forgetRemoteEndpoint(key);
        backends.deleted(key, step.ip());
        ex.cache.deletedEndpoint(key);
        return null;
    }

    // ---- load balancers ---------------------------------------------------------------------------------------

    /** Creates a load balancer within the node's backend limit (see {@link BackendProbe}). */
    private void createLoadBalancer(String id, DesiredLoadBalancer desired) {
        ex.probe.write(desired, this::localIps, true, lb -> createOnce(id, lb), ex.ids.chosen());
    }

    /** The IPs of this node's endpoints (the CNI's), as the policy counts them local. */
    private Set<String> localIps() {
        Set<String> ips = new HashSet<>();
        for (HostComputeEndpoint e : ex.cache.localEndpointDocs()) {
            e.ipAddresses().forEach(ip -> ips.add(HcnTranslator.canonicalIp(ip)));
        }
        return ips;
    }

    private void createOnce(String id, DesiredLoadBalancer desired) {
        List<String> refs = backends.refs(desired);
        List<String> endpointIds = BackendRefs.resolved(desired, refs);
        HostComputeLoadBalancer doc = HcnTranslator.toHcn(desired, endpointIds);
        String actual = ex.ids.create(IdChoice.Kind.LOAD_BALANCER, desired.key().toString(), id,
                sent -> ex.hns.createLoadBalancer(sent == null ? doc : doc.withId(sent)).id(),
                got -> ex.hns.getLoadBalancer(got).isPresent(), () -> result.writes++);
        if (!actual.equals(id)) {
            ex.journal.forgetLoadBalancer(id);
        }
        recordWritten(actual, desired, refs);
        result.created++;
        logger.atInfo().setMessage("Created load balancer").addKeyValue("id", actual)
                .addKeyValue("loadBalancer", desired.key()).addKeyValue("backends", BackendRefs.summary(desired.backends()))
                .addKeyValue("service", desired.service()).log();
        BackendRefs.checkAllResolved(desired, refs);
    }

    private void recordWritten(String id, DesiredLoadBalancer desired, List<String> refs) {
        OwnershipJournal.LoadBalancerEntry entry = PlanExecutor.entry(desired,
                Fingerprints.loadBalancer(desired, refs));
        ex.journal.recordLoadBalancer(id, entry);
        ex.journal.settled(id);
        ex.cache.wroteLoadBalancer(id, HostObserver.journaled(id, entry));
    }

    private void deleteLoadBalancer(String id) {
        try {
            result.writes++;
            ex.hns.deleteLoadBalancer(id);
            result.deleted++;
        } catch (HnsException e) {
            if (ByIdCalls.deleteUnsettled(e, "load balancer", id)) {
                return;
            }
            if (!e.isNotFound()) {
                throw e;
            }
            logger.debug("Load balancer {} was already gone", id);
        }
        ex.journal.forgetLoadBalancer(id);
        ex.cache.deletedLoadBalancer(HnsIds.normalize(id));
    }
}
