package io.winproxy.agent.check;

import io.winproxy.agent.Messages;
import io.winproxy.agent.cli.ClusterSourceOptions;
import io.winproxy.agent.cli.HnsHostOptions;
import io.winproxy.agent.cli.OfflineInputs;
import io.winproxy.agent.cli.OfflineModel;
import io.winproxy.agent.cli.OutputFormat;
import io.winproxy.agent.cli.RootCommand;
import io.winproxy.agent.cli.UsageException;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.pipeline.ClusterObjects;
import io.winproxy.agent.pipeline.ProxyPipeline;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.HnsIds;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanCalculator;
import java.util.concurrent.ThreadLocalRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy check [inputs] [--probe-hns] [--probe-traffic] [-o text|json]}: the node tests itself. The inputs
 * are {@code plan}'s (the live cluster and the node's HNS by default; {@code --manifests}, {@code --example-cluster},
 * {@code --hns-state} offline; the proxy's flags or {@code --config}). One line per result; exit 0 when nothing
 * FAILs, 1 when something does, 2 for usage errors. Read only, except {@code --probe-hns} (scratch objects, deleted)
 * and {@code --probe-traffic} (connections).
 */
@Command(name = "check", description = "Node self-test: preflight, HNS capabilities (--probe-hns), consistency, "
        + "capacity and reachability (--probe-traffic). Exit 0: nothing FAILs; 1: something FAILs; 2: usage.")
public final class CheckCommand implements Callable<Integer> {
    @ParentCommand
    RootCommand root;

    @Mixin
    OfflineInputs inputs = new OfflineInputs();

    @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
    OutputFormat output = OutputFormat.text;

    @Option(names = "--probe-hns", description = "Probe what HNS does with scratch objects carrying winproxy's mark "
            + "on a TEST-NET frontend (192.0.2.0/24), deleted afterwards; keeps what was learnt in the state "
            + "directory (hns-capabilities.json).")
    boolean probeHns;

    @Option(names = "--probe-traffic", description = "Connect to a sample of ClusterIPs, NodePorts and load-balancer "
            + "IPs from this node (on an emulated host: through the packet tracer, labelled modelled).")
    boolean probeTraffic;

    /** How long one connection of --probe-traffic may take. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);

    private final Clock clock = Clock.systemUTC();

    @Override
    public Integer call() throws ConfigException {
        var context = root.context();
        HnsHostOptions host = inputs.host();
        ClusterSourceOptions source = inputs.cluster();
        if (host.effectiveHns() == HnsHostOptions.HnsKind.emulated && host.hnsState().isEmpty()) {
            throw new UsageException("--hns-state: check examines an existing host: give --hns-state FILE (an "
                    + "emulated host) or run it on the Windows node");
        }
        ProxyConfig config = OfflineModel.resolveConfig(context, inputs.flags());
        HnsClient hns = host.openExisting();

        ClusterObjects objects = null;
        ClusterRead read = null;
        String where = source.describe(config);
        if (source.offline()) {
            objects = source.readFiles(context);
        } else {
            try {
                objects = ClusterSourceOptions.list(config, ProxyPipeline.watchOptions(config,
                        config.hostnameOverride()));
            } catch (IllegalStateException e) {
                read = ClusterRead.failed(where, Messages.firstLine(e.getMessage(), e.toString()));
            }
        }
        String nodeName = config.hostnameOverride();
        if (objects != null) {
            nodeName = OfflineModel.nodeName(config, objects, source.offline());
            List<String> warnings = new ArrayList<>();
            ClusterObjects.Mapped mapped = objects.selected(ProxyPipeline.watchOptions(config, nodeName))
                    .mapped(warnings::add);
            warnings.forEach(w -> context.err().println("winproxy: warning: " + w));
            read = new ClusterRead(where, !source.offline(), mapped, "");
        }
        boolean emulated = host.effectiveHns() == HnsHostOptions.HnsKind.emulated;
        Preflight.Outcome preflight = Preflight.run(new Preflight.Inputs(config, hns, emulated, nodeName, read,
                host.hostMacLookup(), new StateDirectoryCheck(host.stateDir(context.env()), !emulated)));

        CheckReport.Builder report = CheckReport.builder().ran(CheckGroup.preflight, preflight.results());
        Optional<OfflineModel> model = Optional.empty();
        String blocked = preflight.network().isEmpty() ? "preflight found no usable HNS network"
                : !read.ok() ? "the cluster could not be read" : "";
        if (blocked.isEmpty()) {
            try {
                model = Optional.of(OfflineModel.compute(context, config, host, objects, source.offline()));
            } catch (HnsException e) {
                blocked = "HNS could not be read: " + HnsErrorText.of(e);
            }
        }
        if (model.isPresent()) {
            OfflineModel m = model.get();
            // The plan again, with the documents of owned load balancers read: changes behind winproxy's back too.
            ObservedState observed = m.withOwnedLoadBalancersRead();
            Plan plan = PlanCalculator.plan(m.snapshot().desired(), observed, m.journal().ownership(),
                    m.hns().capabilities().modifyLoadBalancer());
            report.ran(CheckGroup.consistency, Consistency.run(new Consistency.Inputs(m.snapshot().desired(),
                    observed, plan, m.journal(), read.services())));
            report.ran(CheckGroup.capacity, Capacity.run(new Capacity.Inputs(m.snapshot().desired(), m.observed(),
                    BackendLimits.of(m.hns(), host.stateDir(context.env()),
                            host.maxBackendsPerLoadBalancer()), PortPools.of(m.hns(), !emulated))));
            if (probeTraffic) {
                Reachability.Prober prober = emulated ? new TracedProber(m) : new SocketProber(PROBE_TIMEOUT);
                report.ran(CheckGroup.reachability, Reachability.run(m.snapshot().desired(),
                        m.node().nodeIp(IpFamily.IPV4), read.services(), prober));
            }
        } else {
            report.notRun(CheckGroup.consistency, blocked).notRun(CheckGroup.capacity, blocked);
        }
        if (probeHns && preflight.network().isPresent()) {
            report.ran(CheckGroup.capabilities, new HnsProbe(hns, preflight.network().get(),
                    () -> HnsIds.newId(ThreadLocalRandom.current())).run(host.stateDir(context.env()),
                    clock.instant()));
        } else if (probeHns) {
            report.notRun(CheckGroup.capabilities, "preflight found no usable HNS network");
        }
        if (!report.has(CheckGroup.capabilities)) {
            report.notRun(CheckGroup.capabilities, "not asked for: give --probe-hns");
        }
        if (!report.has(CheckGroup.reachability)) {
            report.notRun(CheckGroup.reachability, probeTraffic ? blocked : "not asked for: give --probe-traffic");
        }
        CheckReport done = report.build();
        if (output == OutputFormat.json) {
            context.out().println(CheckOutput.jsonText(done, clock.instant()));
        } else {
            context.out().print(CheckOutput.text(done));
        }
        return done.exitCode();
    }
}
