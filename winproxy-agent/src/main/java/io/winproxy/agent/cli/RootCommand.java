package io.winproxy.agent.cli;

import io.winproxy.agent.cds.ArchiveKeeper;
import io.winproxy.agent.config.ConfigFileWatcher;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.KubeProxyConfigurationFile;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.logging.KlogRefs;
import io.winproxy.agent.logging.LoggingSetup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.state.InstanceLock;
import io.winproxy.agent.winsvc.LauncherStopEvent;
import io.winproxy.agent.winsvc.PriorityClass;
import io.winproxy.agent.winsvc.ProcessPriority;
import io.winproxy.agent.winsvc.ServiceAgent;
import io.winproxy.agent.winsvc.WindowsServiceHost;
import io.winproxy.hns.HnsClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code winproxy [kube-proxy flags]}: runs the proxy until SIGTERM / Ctrl+C. {@code --write-config-to} writes the
 * effective configuration and exits; {@code --cleanup} is the {@code cleanup} command.
 */
@Command(name = "winproxy", scope = ScopeType.INHERIT,
        description = "A drop-in replacement for kube-proxy's Windows kernelspace mode.",
        subcommands = {DemoCommand.class, PlanCommand.class, TraceCommand.class, HnsCommand.class,
                CleanupCommand.class, VersionCommand.class})
public final class RootCommand implements Callable<Integer> {
    private static final Logger logger = LoggerFactory.getLogger(RootCommand.class);

    private final CliContext context;

    @Option(names = {"-h", "--help"}, usageHelp = true, scope = ScopeType.INHERIT,
            description = "Show this help message and exit.")
    boolean help;

    @Option(names = "--version", arity = "0..1", fallbackValue = "true", paramLabel = "true|raw",
            scope = ScopeType.LOCAL,
            description = "Print the version and exit, as kube-proxy does: one line 'Kubernetes v1.N.M' (the release "
                    + "whose behaviour winproxy matches); --version=raw prints kube-proxy's version.Info form, "
                    + "with winproxy's version as GitCommit. 'winproxy version' prints winproxy's own.")
    String version;

    @Mixin
    ProxyFlags flags = new ProxyFlags();

    @Mixin
    HnsHostOptions host = new HnsHostOptions();

    public RootCommand(CliContext context) {
        this.context = context;
    }

    public CliContext context() {
        return context;
    }

    @Override
    public Integer call() throws Exception {
        if (version != null && !version.equalsIgnoreCase("false")) {
            VersionCommand.printKubeProxyVersion(context.out(), version);
            return 0;
        }
        ProxyConfig config = ConfigResolver.resolve(flags, context.env());
        LoggingSetup.configure(config.logging());
        config.warnings().forEach(w -> logger.atWarn().setMessage(KlogRefs.capitalize(w)).log());
        config.featureGates().withoutEffect()
                .forEach(line -> logger.atDebug().setMessage(KlogRefs.capitalize(line)).log());
        if (config.writeConfigTo().isPresent()) {
            Path target = config.writeConfigTo().get();
            try {
                KubeProxyConfigurationFile.write(config, target);
            } catch (IOException e) {
                throw new IllegalStateException("--write-config-to: cannot write " + target + ": " + e.getMessage(), e);
            }
            context.out().println("Wrote the configuration to " + target);
            return 0;
        }
        if (config.cleanup()) {
            return CleanupCommand.cleanup(context, host, false);
        }
        String network = config.requireNetworkName();
        host.maxBackendsPerLoadBalancer(); // a bad value fails before anything starts
        applyPriorityClass(config);
        // Set when kube-proxy.exe is the service and this process its child: it stops the proxy through an event.
        Optional<LauncherStopEvent> launcher = LauncherStopEvent.forThisProcess(context.env());
        if (config.windowsService() || launcher.isPresent()) {
            if (!HnsHostOptions.isWindows()) {
                throw new UsageException("--windows-service: only available on Windows");
            }
            ServiceAgent agent = new ServiceAgent() {
                private final CountDownLatch stop = new CountDownLatch(1);

                @Override
                public int run(Runnable ready) throws Exception {
                    return runProxy(config, network, ready, stop);
                }

                @Override
                public void requestStop() {
                    stop.countDown();
                }
            };
            return launcher.isPresent() ? launcher.get().run(agent) : WindowsServiceHost.forWindows().run(agent);
        }
        CountDownLatch stop = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        // The JVM halts when its shutdown hooks return: wait (bounded) for the graceful stop to finish.
        context.shutdown().onShutdown(() -> {
            stop.countDown();
            try {
                stopped.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            return runProxy(config, network, () -> { }, stop);
        } finally {
            stopped.countDown();
        }
    }

    /**
     * Runs the proxy until {@code stop} opens or the {@code --config} file changes; {@code ready} runs after the
     * first successful sync. Returns 0 after a requested stop.
     *
     * @throws IllegalStateException when the configuration file changed (kube-proxy exits so that its supervisor
     *                               restarts it with the new file)
     */
    private int runProxy(ProxyConfig config, String network, Runnable ready, CountDownLatch stop)
            throws InterruptedException, IOException {
        try (InstanceLock lock = host.lockStateDir(context.env(), InstanceLock.AGENT)) {
            return runLocked(config, network, ready, stop);
        }
    }

    /** {@link #runProxy} once the state directory's instance lock is held. */
    private int runLocked(ProxyConfig config, String network, Runnable ready, CountDownLatch stop)
            throws InterruptedException, IOException {
        HnsClient hns = host.open();
        AtomicBoolean readyReported = new AtomicBoolean();
        AtomicBoolean configChanged = new AtomicBoolean();
        ConfigFileWatcher watcher = null;
        try (ProxyAgent agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, network), hns,
                host.hostMacLookup(), host.stateDir(context.env()), null, List.of(),
                report -> {
                    if (report.result().complete() && readyReported.compareAndSet(false, true)) {
                        ready.run();
                        ArchiveKeeper.refreshInBackground(!"off".equals(context.env().get("WINPROXY_CDS")));
                    }
                }, null, host.driftBudget(), host.maxBackendsPerLoadBalancer()))) {
            if (config.configFile().isPresent()) {
                try {
                    watcher = ConfigFileWatcher.start(config.configFile().get(), message -> {
                        configChanged.set(true);
                        stop.countDown();
                    });
                } catch (IOException e) {
                    logger.atWarn().setMessage("Cannot watch the configuration file for changes")
                            .addKeyValue("path", config.configFile().get()).addKeyValue("err", e.getMessage()).log();
                }
            }
            stop.await();
        } finally {
            if (watcher != null) {
                watcher.close();
            }
        }
        if (configChanged.get()) {
            throw new IllegalStateException(ConfigFileWatcher.MESSAGE);
        }
        return 0;
    }

    private static void applyPriorityClass(ProxyConfig config) {
        if (config.windowsPriorityClass().isEmpty()) {
            return;
        }
        PriorityClass wanted;
        try {
            wanted = PriorityClass.parse(config.windowsPriorityClass());
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (HnsHostOptions.isWindows()) {
            ProcessPriority.forWindows().apply(wanted);
        } else {
            logger.warn("--windows-priorityclass has no effect on this operating system");
        }
    }
}
