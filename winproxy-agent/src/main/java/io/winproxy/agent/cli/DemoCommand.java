package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.DemoCluster;
import io.winproxy.agent.demo.DemoKubeconfig;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.logging.KlogRefs;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsVariant;
import io.winproxy.policy.model.NodeInfo;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy demo [--manifests DIR] [--once]}: an embedded Kubernetes API on loopback seeded from DIR (default:
 * the bundled example cluster), the real agent against it through real informers, the emulated HNS host built from
 * the cluster's Nodes (with a CNI creating local endpoints for this node's pods), health and metrics on loopback.
 * Prints the programmed load balancers after every sync that changed something. {@code --once} exits 0 after the
 * first successful sync (1 when none succeeds in time); otherwise it follows edits in DIR until Ctrl+C.
 */
@Command(name = "demo", description = "Run the agent against an embedded API server and the emulated HNS.")
public final class DemoCommand implements Callable<Integer> {
    private static final Logger logger = LoggerFactory.getLogger(DemoCommand.class);

    @ParentCommand
    RootCommand root;

    @Mixin
    ProxyFlags flags = new ProxyFlags();

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    @Mixin
    HnsFaultOptions hnsFaults = new HnsFaultOptions();

    @Option(names = "--manifests", paramLabel = "DIR",
            description = "Directory of YAML Nodes, Services and EndpointSlices to serve and follow "
                    + "(default: the bundled example cluster).")
    Path manifests;

    @Option(names = "--once", description = "Exit after the first successful sync.")
    boolean once;

    @Option(names = "--api-port", paramLabel = "PORT",
            description = "Loopback port of the embedded API server (default: 0, a free port).")
    int apiPort;

    @Option(names = "--write-kubeconfig", paramLabel = "FILE",
            description = "Write a kubeconfig for the embedded API server to FILE, for a proxy started separately.")
    Path writeKubeconfig;

    @Option(names = "--api-only",
            description = "Run only the embedded API, the manifests follower and the emulated host in --hns-state "
                    + "FILE; start the proxy (the root command) yourself in another terminal.")
    boolean apiOnly;

    @Option(names = "--hns-variant", paramLabel = "NAME[,NAME]", split = ",",
            description = "Switch HNS variants on in the emulated host (ids-ignored, ids-rejected, extra-flags, "
                    + "modify-noop, duplicate-frontend; see 'hns variant').")
    List<String> hnsVariants;

    @Option(names = "--once-timeout", paramLabel = "SECONDS", hidden = true,
            description = "How long --once waits for a successful sync (default: 60).")
    long onceTimeoutSeconds = 60;

    @Override
    public Integer call() throws ConfigException, InterruptedException, IOException {
        if (!EmbeddedApiServer.available()) {
            throw new UsageException("demo: the embedded API server is not part of this distribution (the node's "
                    + "zip leaves it out); run the demo from a development build, or run the proxy against a cluster");
        }
        if (host.effectiveHns() == HnsHostOptions.HnsKind.windows) {
            throw new UsageException("--hns: the demo runs on the emulated HNS (use --hns emulated)");
        }
        CliContext context = root.context();
        PrintStream out = context.out();
        Set<HnsVariant> variants = hnsVariants == null ? null : HnsVariantCommand.parse("--hns-variant", hnsVariants);
        if (apiOnly) {
            if (once) {
                throw new UsageException("--api-only: cannot be combined with --once (nothing would be programmed)");
            }
            if (host.hnsState().isEmpty()) {
                throw new UsageException("--api-only: give --hns-state FILE, the emulated host the proxy in the "
                        + "other terminal will share");
            }
            HnsEmulator shared = HnsEmulator.builder().stateFile(host.hnsState().get()).build();
            hnsFaults.applyTo(shared);
            if (variants != null) {
                shared.setVariants(variants);
            }
            return new ApiOnlyDemo(context, flags, host).run(manifests, apiPort, writeKubeconfig);
        }
        // Flag and configuration errors fail before the embedded API server starts.
        ProxyConfig config = ConfigResolver.resolve(demoFlags(flags), context.env());
        LoggingSetup.configure(config.logging());
        config.warnings().forEach(w -> logger.atWarn().setMessage(KlogRefs.capitalize(w)).log());

        DemoCluster cluster = DemoCluster.start(manifests, apiPort, !once);
        ProxyAgent agent = null;
        try {
            // The agent talks to the embedded API with a client of its own, built and measured as on a node
            // (rest_client_* metrics, outage lines), unless the flags name an API server themselves.
            ProxyFlags withApi = demoFlags(flags);
            if (!withApi.isSet("--master") && !withApi.isSet("--kubeconfig")) {
                withApi.set("--master", cluster.apiUrl());
                config = ConfigResolver.resolve(withApi, context.env());
            }
            List<NodeInfo> nodes = EmulatedHostFollower.nodes(cluster.client());
            String nodeName = EmulatedCluster.nodeName(config.configuredHostnameOverride(), nodes);
            if (writeKubeconfig != null) {
                DemoKubeconfig.write(writeKubeconfig, cluster.apiUrl());
            }

            HnsEmulator hns = host.hnsState().map(p -> HnsEmulator.builder().stateFile(p).build())
                    .orElseGet(HnsEmulator::inMemory);
            hnsFaults.applyTo(hns);
            if (variants != null) {
                hns.setVariants(variants);
            }
            EmulatedHost emulated = new EmulatedHost(hns, EmulatedCluster.networkType(host.emulatedNetworkType()),
                    config.networkName().isEmpty() ? null : config.networkName(), nodeName);
            EmulatedCluster.syncNetwork(emulated, nodes);
            NodeFacts node = NodeFacts.of(config, emulated.networkName()).withNodeName(nodeName);
            if (emulated.type() == EmulatedHost.NetworkType.OVERLAY && !node.sourceVip().isEmpty()) {
                // The CNI's host endpoint holds the given source VIP, as on a node. Without --source-vip the agent
                // lets HNS assign one from the network's subnet (and reuses it after a restart).
                emulated.ensureHostEndpoint(node.sourceVip());
            }
            Path stateDir = host.stateDirGiven() || host.hnsState().isPresent() ? host.stateDir(context.env())
                    : Files.createTempDirectory("winproxy-demo-state");

            CountDownLatch firstSuccess = new CountDownLatch(1);
            AtomicBoolean printedOnce = new AtomicBoolean();
            agent = ProxyAgent.start(new ProxyAgent.Setup(config, node, hns, host.hostMacLookup(), stateDir,
                    null, List.of("127.0.0.1"),
                    report -> {
                        if (report.changed() || printedOnce.compareAndSet(false, true)) {
                            printedOnce.set(true);
                            print(out, report);
                        }
                        if (report.result().complete()) {
                            firstSuccess.countDown();
                        }
                    }, handler -> new DemoCni(emulated, handler), host.driftBudget(),
                    host.maxBackendsPerLoadBalancer()));
            out.printf("winproxy demo: node %s, %s network %s, API server %s, manifests %s%n", nodeName,
                    emulated.type().hcnType(), emulated.networkName(), cluster.apiUrl(), cluster.manifestsDir());
            if (!hns.variants().isEmpty()) {
                out.println("  HNS variants: " + String.join(", ", hns.variants().stream().map(HnsVariant::text)
                        .toList()));
            }
            agent.healthAddress().ifPresent(a -> out.println("  health:  http://" + hostPort(a) + "/healthz"));
            agent.metricsAddress().ifPresent(a -> out.println("  metrics: http://" + hostPort(a) + "/metrics"));

            if (once) {
                boolean synced = firstSuccess.await(onceTimeoutSeconds, TimeUnit.SECONDS);
                if (!synced) {
                    context.err().println("winproxy: demo: no successful sync within " + onceTimeoutSeconds + "s");
                    return 1;
                }
                return 0;
            }
            out.println("Following " + cluster.manifestsDir()
                    + "; edit the files to change the cluster, Ctrl+C to stop.");
            ProxyAgent running = agent;
            context.shutdown().onShutdown(() -> {
                running.close();
                cluster.close();
            });
            agent.awaitStop();
            return 0;
        } finally {
            if (once || agent == null) {
                if (agent != null) {
                    agent.close();
                }
                cluster.close();
            }
        }
    }

    /**
     * The demo's defaults on top of the user's flags, in a copy (the parsed flags stay as given): health and metrics
     * on loopback, and a one-second minimum sync period, unless the flags set them.
     */
    static ProxyFlags demoFlags(ProxyFlags given) throws ConfigException {
        ProxyFlags flags = ProxyFlags.parse(given.asArguments().toArray(String[]::new));
        if (!flags.isSet("--healthz-bind-address")) {
            flags.set("--healthz-bind-address", "127.0.0.1:10256");
        }
        if (!flags.isSet("--metrics-bind-address")) {
            flags.set("--metrics-bind-address", "127.0.0.1:10249");
        }
        if (!flags.isSet("--min-sync-period") && !flags.isSet("--iptables-min-sync-period")) {
            flags.set("--iptables-min-sync-period", "1s");
        }
        return flags;
    }

    private static String hostPort(java.net.InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    private static void print(PrintStream out, SyncReport report) {
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "%n--- sync %d: %d created, %d modified, %d deleted, %d adopted (%d ms)%n",
                report.sequence(), report.result().created(), report.result().modified(), report.result().deleted(),
                report.result().adopted(), report.duration().toMillis()));
        s.append(LoadBalancerTable.render(report.snapshot().desired().loadBalancers()));
        report.result().failures().forEach(f -> s.append("  failed: ").append(f).append('\n'));
        report.snapshot().desired().warnings().forEach(w -> s.append("  warning: ").append(w).append('\n'));
        out.print(s);
        out.flush();
    }
}
