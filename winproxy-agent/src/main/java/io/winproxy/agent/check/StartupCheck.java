package io.winproxy.agent.check;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.DaemonThreads;
import io.winproxy.agent.Messages;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.agent.kube.NodeMapper;
import io.winproxy.agent.metrics.AgentMetrics;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.state.DirectoryProtection;
import io.winproxy.agent.state.StateDirectory;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's own check: preflight once at start-up (on a thread of its own, so that a slow API server never delays
 * the proxy), and consistency and capacity once after the first sync (on the sync thread, against a fresh read-only
 * observation of the host and the flushed journal, so that the running sync's incremental state is untouched). Each
 * phase logs one summary line and one line per FAIL, emits a Warning Event on the Node per FAIL, sets
 * {@code winproxy_check_failures{group}} and writes the report so far to {@code <state-dir>/check.json}.
 * Thread-safe.
 */
public final class StartupCheck {
    private static final Logger logger = LoggerFactory.getLogger(StartupCheck.class);
    static final String NOT_AT_START = "not run at start-up: winproxy check ";
    /**
     * Above this many wanted objects (load balancers and remote endpoints) the start-up consistency check does not read
     * the host again: a second, fresh observation would hold a second copy of the host beside the agent's own (at
     * 10,000 Services x 10 endpoints that ran the shipped 256 MiB heap out) and read the document of every object the
     * journal does not name. It reports what the first sync itself found instead; {@code winproxy check} reads it all.
     */
    static final int FRESH_READ_LIMIT = 20_000;

    /**
     * @param config   the proxy's configuration
     * @param node     this node's facts
     * @param hns      the HNS the agent programs
     * @param emulated whether it is an emulated host
     * @param hostMac  the host-MAC port that goes with it
     * @param stateDir the state directory (the journal, check.json)
     * @param cluster  reads this node's Node object with the agent's credentials
     * @param events   where the Warning Events go
     * @param metrics  where the gauge goes
     * @param clock    the time written into check.json
     * @param maxBackends {@code --hns-max-backends-per-load-balancer}, or null: the limit capacity checks against
     */
    public record Setup(ProxyConfig config, NodeFacts node, HnsClient hns, boolean emulated, HostMacLookup hostMac,
                        Path stateDir, Supplier<ClusterRead> cluster, EventRecorder events, AgentMetrics metrics,
                        Clock clock, Integer maxBackends) {
    }

    private final Setup setup;
    private final AtomicBoolean consistencyDone = new AtomicBoolean();
    private List<CheckResult> preflight;
    private List<CheckResult> consistency;
    private List<CheckResult> capacity;

    public StartupCheck(Setup setup) {
        this.setup = setup;
    }

    /** Reads this node's Node with {@code client}: the API server check of preflight. */
    public static Supplier<ClusterRead> nodeRead(KubernetesClient client, String nodeName) {
        return () -> {
            String where = String.valueOf(client.getMasterUrl());
            try {
                Node node = client.nodes().withName(nodeName).get();
                List<NodeInfo> nodes = new ArrayList<>();
                if (node != null) {
                    new NodeMapper(w -> { }).map(node).ifPresent(nodes::add);
                }
                return new ClusterRead(where, true, new ClusterObjects.Mapped(nodes, List.of(), List.of()), "");
            } catch (KubernetesClientException e) {
                return ClusterRead.failed(where, (e.getCode() > 0 ? "HTTP " + e.getCode() + " " : "")
                        + Messages.firstLine(e.getMessage(), e.toString()));
            }
        };
    }

    /** Starts preflight on a daemon thread. */
    public void startPreflight() {
        DaemonThreads.named("winproxy-check").newThread(this::runPreflight).start();
    }

    /** Runs preflight now (the caller's thread). */
    public void runPreflight() {
        List<CheckResult> results;
        try {
            if (!Files.exists(setup.stateDir())) {
                // The agent's own directory: created protected, as the journal's first flush would.
                StateDirectory.prepare(setup.stateDir(), DirectoryProtection.forThisOs(setup.stateDir(),
                        !setup.emulated()));
            }
            Preflight.Outcome outcome = Preflight.run(new Preflight.Inputs(setup.config(), setup.hns(),
                    setup.emulated(), setup.node().nodeName(), setup.cluster().get(), setup.hostMac(),
                    new StateDirectoryCheck(setup.stateDir(), !setup.emulated()), false));
            results = outcome.results();
            // Scratch objects of a 'check --probe-hns' that died are recognisable by frontend and MAC: remove them.
            outcome.network().ifPresent(net -> ScratchObjects.sweepAtStart(setup.hns(), net.id(),
                    OwnershipJournal.readOnly(setup.stateDir()).ownership()));
        } catch (RuntimeException e) {
            results = List.of(CheckResult.fail(CheckGroup.preflight, "preflight", "the preflight check failed: " + e,
                    "an unexpected error", "run 'winproxy check' (docs/troubleshooting.md#start-here-winproxy-check)"));
        }
        synchronized (this) {
            preflight = results;
        }
        publish("preflight", results);
    }

    private Capacity.BackendLimit backendLimit() {
        return BackendLimits.of(setup.hns(), setup.stateDir(), setup.maxBackends());
    }

    /**
     * Called on the sync thread after every sync: after the first, runs consistency and capacity once against a
     * fresh read of the host.
     */
    public void afterSync(SyncReport report) {
        if (!consistencyDone.compareAndSet(false, true)) {
            return;
        }
        DesiredState desired = report.snapshot().desired();
        List<CheckResult> found;
        List<CheckResult> sized;
        int wanted = desired.loadBalancers().size() + desired.remoteEndpoints().size();
        if (wanted > FRESH_READ_LIMIT) {
            found = fromFirstSync(report, wanted);
            sized = Capacity.run(new Capacity.Inputs(desired, null, backendLimit(),
                    PortPools.of(setup.hns(), !setup.emulated())));
            record(found, sized);
            return;
        }
        try {
            OwnershipJournal journal = OwnershipJournal.readOnly(setup.stateDir());
            HnsDataplane reader = new HnsDataplane(setup.hns(), setup.node().networkName(), journal,
                    setup.config().syncPeriod(), System::nanoTime);
            ObservedState observed = reader.observe();
            Plan plan = PlanCalculator.plan(desired, observed, journal.ownership(), reader.modifySupported());
            found = Consistency.run(new Consistency.Inputs(desired, observed, plan, journal, List.of()));
            sized = Capacity.run(new Capacity.Inputs(desired, observed, backendLimit(),
                    PortPools.of(setup.hns(), !setup.emulated())));
        } catch (HnsException | IllegalStateException e) {
            String why = e instanceof HnsException h ? HnsErrorText.of(h) : e.getMessage();
            found = List.of(CheckResult.fail(CheckGroup.consistency, "consistency", "cannot read the host: " + why,
                    "HNS or the journal could not be read", "run 'winproxy check'"
                            + " (docs/troubleshooting.md#start-here-winproxy-check)"));
            sized = List.of();
        }
        record(found, sized);
    }

    private void record(List<CheckResult> found, List<CheckResult> sized) {
        synchronized (this) {
            consistency = found;
            capacity = sized;
        }
        List<CheckResult> both = new ArrayList<>(found);
        both.addAll(sized);
        publish("consistency", both);
    }

    /** Consistency from what the first sync did: each step that failed is a FAIL; none failed, a PASS. */
    static List<CheckResult> fromFirstSync(SyncReport report, int wanted) {
        List<CheckResult> out = new ArrayList<>();
        for (var failure : report.result().failures()) {
            out.add(CheckResult.fail(CheckGroup.consistency, "first-sync", failure.op() + " " + failure.object()
                            + " failed: " + failure.hresult() + " " + failure.message(),
                    "the first sync could not program it", "winproxy status " + failure.service()
                            + " (docs/troubleshooting.md#start-here-winproxy-check)")
                    .about(failure.service() == null ? "" : failure.service()));
        }
        if (out.isEmpty()) {
            out.add(CheckResult.pass(CheckGroup.consistency, "first-sync", "the first sync programmed every one of "
                    + wanted + " wanted objects (above " + FRESH_READ_LIMIT + " the start-up check does not read the"
                    + " host a second time; 'winproxy check' does)"));
        }
        return out;
    }

    /** The report so far. */
    public synchronized CheckReport report() {
        CheckReport.Builder b = CheckReport.builder();
        section(b, CheckGroup.preflight, preflight, "running");
        section(b, CheckGroup.consistency, consistency, "after the first sync");
        section(b, CheckGroup.capacity, capacity, "after the first sync");
        b.notRun(CheckGroup.capabilities, NOT_AT_START + "--probe-hns");
        b.notRun(CheckGroup.reachability, NOT_AT_START + "--probe-traffic");
        return b.build();
    }

    private static void section(CheckReport.Builder b, CheckGroup group, List<CheckResult> results, String pending) {
        if (results == null) {
            b.notRun(group, pending);
        } else {
            b.ran(group, results);
        }
    }

    private void publish(String phase, List<CheckResult> results) {
        CheckReport report = report();
        long fails = results.stream().filter(r -> r.status() == CheckStatus.FAIL).count();
        long warns = results.stream().filter(r -> r.status() == CheckStatus.WARN).count();
        var line = (fails > 0 ? logger.atWarn() : logger.atInfo()).setMessage("Start-up check")
                .addKeyValue("phase", phase).addKeyValue("pass", results.size() - fails - warns)
                .addKeyValue("warn", warns).addKeyValue("fail", fails);
        line.log();
        String nodeName = setup.node().nodeName();
        for (CheckResult r : results) {
            if (r.status() != CheckStatus.FAIL) {
                continue;
            }
            logger.atWarn().setMessage("Check failed").addKeyValue("check", r.group() + "/" + r.check())
                    .addKeyValue("result", r.message()).addKeyValue("cause", r.cause()).addKeyValue("fix", r.fix())
                    .log();
            setup.events().event("Node", "", nodeName, "Warning", "CheckFailed",
                    r.group() + "/" + r.check() + ": " + r.message() + "; fix: " + r.fix());
        }
        report.failuresByGroup().forEach((g, n) -> {
            if (report.sections().stream().anyMatch(s -> s.group() == g && s.ran())) {
                setup.metrics().checkFailures(g.name(), n);
            }
        });
        if (Files.isDirectory(setup.stateDir())) {
            try {
                CheckReportFile.write(setup.stateDir(), report, setup.clock().instant());
            } catch (IOException e) {
                logger.atWarn().setMessage("Cannot write the check report").addKeyValue("dir", setup.stateDir())
                        .addKeyValue("err", e.getMessage()).log();
            }
        }
    }

    /** The latest report as written, for tests. */
    Optional<Path> file() {
        Path f = setup.stateDir().resolve(CheckReportFile.FILE_NAME);
        return Files.isRegularFile(f) ? Optional.of(f) : Optional.empty();
    }
}
