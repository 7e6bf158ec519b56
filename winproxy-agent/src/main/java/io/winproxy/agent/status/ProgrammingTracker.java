package io.winproxy.agent.status;

import io.winproxy.agent.dataplane.ApplyResult;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.EndpointInfo;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.ServicePortInfo;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import io.winproxy.policy.tracking.ProxyState;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * After every sync, turns what happened to each Service port into its record ({@link ProgrammingBook}), its state
 * (the {@code winproxy_service_ports{state}} gauge), kubernetes#137766's load-balancer failure counters, the repair
 * counter, and the Events on the Service: Warning {@code FailedToProgram} (once per object and HRESULT until it
 * works), Normal {@code Programmed} when a failing port recovers, Normal {@code Repaired} when the dataplane re-created
 * something that disappeared behind winproxy's back. Work is proportional to the sync's change: the ports whose share
 * of the desired state changed, those the plan touched, and those still failing or pending (every port when the
 * desired state says everything changed). Sync thread only.
 */
public final class ProgrammingTracker {
    private static final Logger logger = LoggerFactory.getLogger(ProgrammingTracker.class);
    /** Event reasons. */
    public static final String FAILED_TO_PROGRAM = "FailedToProgram";
    public static final String PROGRAMMED = "Programmed";
    public static final String REPAIRED = "Repaired";

    /**
     * What one sync did, as the tracker reads it.
     *
     * @param now            when the sync finished
     * @param changeQueuedAt when the first change this sync applied was queued (null for a periodic resync)
     * @param state          the trackers' state after the sync (service ports and endpoints)
     * @param families       the IP families this node serves
     * @param backoff        the backoff of a plan step's object
     * @param ownedEntry     the journal entry of an owned load balancer by ID (labels failed deletes)
     * @param repairs        the repairs the apply made ({@link RepairDetector})
     */
    public record SyncFacts(Instant now, Instant changeQueuedAt, ProxyState state, DesiredState desired,
                            List<IpFamily> families, Plan plan, ApplyResult result,
                            Function<String, HnsDataplane.Backoff> backoff,
                            Function<String, Optional<OwnershipJournal.LoadBalancerEntry>> ownedEntry,
                            List<Repair> repairs) {
    }

    private final ProgrammingBook book = new ProgrammingBook();
    private final Map<String, String> stateByPort = new HashMap<>();
    private final Map<String, Integer> counts = new HashMap<>();
    private final Set<String> reportedFailures = new HashSet<>();
    private final AgentMetrics metrics;
    private final EventRecorder events;

    public ProgrammingTracker(AgentMetrics metrics, EventRecorder events) {
        this.metrics = metrics;
        this.events = events;
    }

    /** The book (sync thread only). */
    public ProgrammingBook book() {
        return book;
    }

    public void afterSync(SyncFacts f) {
        Map<String, PlanStep> stepByObject = new HashMap<>();
        Map<String, String> objectByPort = new HashMap<>();
        Set<String> touched = new LinkedHashSet<>();
        Set<String> changed = new HashSet<>();
        DesiredState.Changes changes = f.desired().changes();
        if (changes.everything()) {
            f.state().services().asMap().keySet().forEach(n -> changed.add(n.toString()));
            touched.addAll(stateByPort.keySet());
        } else {
            changes.servicePorts().forEach(n -> changed.add(n.toString()));
        }
        touched.addAll(changed);
        for (PlanStep step : f.plan().steps()) {
            stepByObject.put(step.object(), step);
            if (!step.service().isEmpty()) {
                touched.add(step.service());
                objectByPort.putIfAbsent(step.service(), step.object());
            }
        }
        touched.addAll(book.unsettled());

        Map<String, ServicePortStatus.LastError> failedNow = new HashMap<>();
        for (ApplyResult.StepFailure failure : f.result().failures()) {
            PlanStep step = stepByObject.get(failure.object());
            countFailure(f, failure, step);
            if (failure.service().isEmpty()) {
                continue;
            }
            touched.add(failure.service());
            HnsDataplane.Backoff backoff = f.backoff().apply(failure.object());
            failedNow.put(failure.service(), lastError(failure, f.now(), backoff.failures()));
        }
        reportFailureEvents(f, stepByObject);
        Map<String, String> waiting = new HashMap<>();
        Set<String> deferred = new HashSet<>(f.result().deferred());
        for (PlanStep step : f.plan().steps()) {
            if (step.service().isEmpty() || failedNow.containsKey(step.service())) {
                continue;
            }
            if (deferred.contains(step.op() + " " + step.object())) {
                waiting.put(step.service(), f.result().journalBlocked() ? "waiting for the ownership journal"
                        : f.backoff().apply(step.object()).failures() > 0 ? "backing off after a failure"
                        : "HNS is unavailable");
            } else if (f.result().remaining() > 0) {
                waiting.putIfAbsent(step.service(), "a bounded sync: continues in the next chunk");
            }
        }

        StatusCalculator.Inputs inputs = new StatusCalculator.Inputs(f.desired(), null, Map.of(), f.families(),
                StatusCalculator.warningsByService(f.desired().warnings()));
        for (String port : touched) {
            Optional<ServicePortInfo> info = find(f.state(), port);
            if (info.isEmpty()) {
                book.remove(port);
                setState(port, null);
                continue;
            }
            ProgrammingBook.Entry before = book.getOrEmpty(port);
            ProgrammingBook.Entry entry = before;
            if (changed.contains(port)) {
                entry = entry.changed(f.changeQueuedAt() != null ? f.changeQueuedAt() : f.now());
            }
            ServicePortStatus.LastError error = failedNow.get(port);
            if (error != null) {
                entry = entry.failed(error, retryAt(f, error.object()), f.now());
            } else if (waiting.containsKey(port)) {
                String object = objectByPort.get(port);
                entry = entry.waiting(waiting.get(port), object == null ? null : retryAt(f, object));
            } else if (before.failing() || before.pending() || changed.contains(port)
                    || objectByPort.containsKey(port)) {
                entry = entry.programmed(f.now());
                if (before.failing()) {
                    recovered(port, before);
                }
            }
            book.put(port, entry);
            List<EndpointInfo> endpoints = f.state().endpointsOf(info.get().name());
            setState(port, StatusCalculator.of(info.get(), endpoints, inputs, entry).state());
        }
        for (Repair repair : f.repairs()) {
            metrics.hnsRepair(repair.object(), repair.cause());
            logger.atInfo().setMessage("Repaired an HNS object changed behind winproxy's back")
                    .addKeyValue("object", repair.object()).addKeyValue("cause", repair.cause())
                    .addKeyValue("loadBalancer", repair.frontend()).addKeyValue("service", repair.servicePort()).log();
            if (!repair.servicePort().isEmpty() && !Repair.LEAKED.equals(repair.cause())) {
                String[] ns = serviceRef(repair.servicePort());
                events.event("Service", ns[0], ns[1], "Normal", REPAIRED, repair.message());
            }
        }
        metrics.servicePorts(count(ServicePortStatus.PROGRAMMED), count(ServicePortStatus.PENDING),
                count(ServicePortStatus.FAILED), count(ServicePortStatus.NOT_PROGRAMMED));
    }

    /** The state the tracker last computed for a port ("ns/name:port"), or null. */
    public String state(String servicePort) {
        return stateByPort.get(servicePort);
    }

    private void recovered(String port, ProgrammingBook.Entry before) {
        String[] ns = serviceRef(port);
        ServicePortStatus.LastError e = before.lastError();
        events.event("Service", ns[0], ns[1], "Normal", PROGRAMMED, "Port " + port + " is programmed again"
                + (e == null ? "" : " after " + e.attempts() + " failed attempt(s) (last " + e.name() + ")"));
    }

    /**
     * A Warning Event on the Service whose load balancer could not be programmed, once per object and HRESULT until
     * it succeeds again (the step is retried with backoff meanwhile).
     */
    private void reportFailureEvents(SyncFacts f, Map<String, PlanStep> stepByObject) {
        Set<String> stillFailing = new HashSet<>();
        for (ApplyResult.StepFailure failure : f.result().failures()) {
            String key = failure.object() + '\u0000' + failure.hresult();
            stillFailing.add(key);
            if (failure.service().isEmpty() || reportedFailures.contains(key)) {
                continue;
            }
            String[] ns = serviceRef(failure.service());
            PlanStep step = stepByObject.get(failure.object());
            String kind = step instanceof PlanStep.LoadBalancerStep lb ? lb.loadBalancer().kind().displayName() + " "
                    : "";
            String decoded = failure.hresult().isEmpty() ? failure.message()
                    : HnsErrors.diagnose(HResults.parse(failure.hresult())).summary();
            events.event("Service", ns[0], ns[1], "Warning", FAILED_TO_PROGRAM, "HNS " + failure.op() + " of "
                    + kind + "load balancer " + failure.object() + " for port " + failure.service() + " failed: "
                    + decoded + "; retrying");
        }
        // An object skipped while it backs off is still failing: keep it reported.
        for (String key : reportedFailures) {
            String object = key.substring(0, key.indexOf('\u0000'));
            if (f.result().deferred().stream().anyMatch(d -> d.endsWith(" " + object))) {
                stillFailing.add(key);
            }
        }
        reportedFailures.clear();
        reportedFailures.addAll(stillFailing);
    }

    /** kubernetes#137766's counters; failures of remote-endpoint steps are not load-balancer failures. */
    private void countFailure(SyncFacts f, ApplyResult.StepFailure failure, PlanStep step) {
        String op;
        IpFamily family;
        String lbType;
        if (step instanceof PlanStep.LoadBalancerStep lb) {
            op = step instanceof PlanStep.CreateLoadBalancer ? "create" : "update";
            family = lb.loadBalancer().key().family();
            lbType = lbType(lb.loadBalancer().kind());
        } else if (step instanceof PlanStep.DeleteLoadBalancer d) {
            op = "delete";
            Optional<OwnershipJournal.LoadBalancerEntry> entry = f.ownedEntry().apply(d.id());
            family = entry.map(e -> e.ipv6() ? IpFamily.IPV6 : IpFamily.IPV4).orElse(IpFamily.IPV4);
            lbType = entry.map(e -> lbTypeOfDeleted(f.state(), e)).orElse("clusterip");
        } else {
            return;
        }
        String error = failure.hresult().isEmpty() ? HnsErrors.LABEL_OTHER
                : HnsErrors.label(HResults.parse(failure.hresult()));
        metrics.loadBalancerFailure(op, family, lbType, error);
    }

    static String lbType(LoadBalancerKind kind) {
        return switch (kind) {
            case CLUSTER_IP -> "clusterip";
            case NODE_PORT -> "nodeport";
            case EXTERNAL_IP -> "externalip";
            case LOAD_BALANCER_INGRESS -> "ingressip";
            case HEALTH_CHECK -> "healthcheck";
        };
    }

    /** The type of a load balancer being deleted, from its frontend and what its Service still says of that IP. */
    private static String lbTypeOfDeleted(ProxyState state, OwnershipJournal.LoadBalancerEntry entry) {
        String vip = entry.key().substring(0, entry.key().lastIndexOf(':')).replace("[", "").replace("]", "");
        if (vip.equals("*") || vip.isEmpty()) {
            return "nodeport";
        }
        Optional<ServicePortInfo> info = find(state, entry.service());
        if (info.isPresent()) {
            if (info.get().externalIps().contains(vip)) {
                return "externalip";
            }
            if (info.get().loadBalancerIps().contains(vip)) {
                return entry.key().endsWith(":" + info.get().healthCheckNodePort() + "/TCP") ? "healthcheck"
                        : "ingressip";
            }
        }
        return "clusterip";
    }

    private static ServicePortStatus.LastError lastError(ApplyResult.StepFailure failure, Instant at, int attempts) {
        if (failure.hresult().isEmpty()) {
            return new ServicePortStatus.LastError(failure.op(), failure.object(), "", "", failure.message(), "",
                    failure.message(), at.toString(), Math.max(1, attempts));
        }
        HnsErrors.Diagnosis d = HnsErrors.diagnose(HResults.parse(failure.hresult()));
        return new ServicePortStatus.LastError(failure.op(), failure.object(), HResults.hex(d.hresult()), d.name(),
                d.cause(), d.fix(), failure.message(), at.toString(), Math.max(1, attempts));
    }

    private static Instant retryAt(SyncFacts f, String object) {
        HnsDataplane.Backoff b = f.backoff().apply(object);
        return f.now().plus(b.waitLeft());
    }

    private void setState(String port, String state) {
        String old = state == null ? stateByPort.remove(port) : stateByPort.put(port, state);
        if (old != null) {
            counts.merge(old, -1, Integer::sum);
        }
        if (state != null) {
            counts.merge(state, 1, Integer::sum);
        }
    }

    private int count(String state) {
        return counts.getOrDefault(state, 0);
    }

    /** The service port "ns/name:port" in the trackers' state. */
    static Optional<ServicePortInfo> find(ProxyState state, String servicePort) {
        int colon = servicePort.lastIndexOf(':');
        if (colon < 0) {
            return Optional.empty();
        }
        String service = servicePort.substring(0, colon);
        String port = servicePort.substring(colon + 1);
        return state.services().ofService(service).stream().filter(p -> p.name().port().equals(port)).findFirst();
    }

    /** {namespace, name} of "ns/name:port". */
    static String[] serviceRef(String servicePort) {
        String service = servicePort.substring(0, servicePort.lastIndexOf(':'));
        int slash = service.indexOf('/');
        return new String[] {service.substring(0, slash), service.substring(slash + 1)};
    }
}
