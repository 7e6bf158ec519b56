package io.winproxy.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.check.StartupCheck;
import io.winproxy.agent.config.KubeProxyConfigurationFile;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.MeteredHnsClient;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.health.ServiceHealthServer;
import io.winproxy.agent.kube.ApiTraffic;
import io.winproxy.agent.kube.ClusterEventHandler;
import io.winproxy.agent.kube.ClusterWatcher;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeEventRecorder;
import io.winproxy.agent.metrics.BuildInfo;
import io.winproxy.agent.metrics.MetricsServer;
import io.winproxy.agent.status.StatusEndpoint;
import io.winproxy.agent.metrics.PrometheusAgentMetrics;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.pipeline.ProxyPipeline;
import io.winproxy.agent.sync.ExecutorScheduler;
import io.winproxy.agent.sync.HeapReturn;
import io.winproxy.agent.sync.ProxySyncLoop;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.agent.sync.VfpPolicyEngine;
import io.winproxy.agent.zpages.ComponentPages;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.IpFamily;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running proxy: builds the object graph from a {@link ProxyConfig} (API client, informers, sync loop, HNS
 * dataplane, health and metrics servers, event recorder), starts it, and stops it gracefully. Stopping ends the
 * informers and servers and never deletes HNS state, so a restart adopts what is programmed.
 */
public final class ProxyAgent implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(ProxyAgent.class);
    private static final BuildInfo BUILD = BuildInfo.of(VersionCommand.KUBERNETES_VERSION, VersionCommand.version());

    /**
     * How to build the agent.
     *
     * @param node             this node's facts ({@link NodeFacts#of} for the proxy; the demo derives its own)
     * @param hostMac          the host-MAC port that goes with {@code hns}
     * @param client           an API client to use (the demo's), or null to build one from the configuration
     * @param serviceHealthIps IPs of the per-service health check listeners (empty: all addresses)
     * @param onSync           called on the sync thread after every sync that reached HNS; may be null
     * @param handlerDecorator wraps the sync loop's event handler (the demo's CNI simulation); may be null
     */
    public record Setup(ProxyConfig config, NodeFacts node, HnsClient hns, HostMacLookup hostMac, Path stateDir,
                        KubernetesClient client, List<String> serviceHealthIps, Consumer<SyncReport> onSync,
                        UnaryOperator<ClusterEventHandler> handlerDecorator, DriftBudget drift, Integer maxBackends) {
        /** A setup without a configured backend limit. */
        public Setup(ProxyConfig config, NodeFacts node, HnsClient hns, HostMacLookup hostMac, Path stateDir,
                     KubernetesClient client, List<String> serviceHealthIps, Consumer<SyncReport> onSync,
                     UnaryOperator<ClusterEventHandler> handlerDecorator, DriftBudget drift) {
            this(config, node, hns, hostMac, stateDir, client, serviceHealthIps, onSync, handlerDecorator, drift,
                    null);
        }

        /** A setup with the default drift budget. */
        public Setup(ProxyConfig config, NodeFacts node, HnsClient hns, HostMacLookup hostMac, Path stateDir,
                     KubernetesClient client, List<String> serviceHealthIps, Consumer<SyncReport> onSync,
                     UnaryOperator<ClusterEventHandler> handlerDecorator) {
            this(config, node, hns, hostMac, stateDir, client, serviceHealthIps, onSync, handlerDecorator,
                    DriftBudget.DEFAULT);
        }
    }

    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final ProxySyncLoop loop;
    private final ClusterWatcher watcher;
    private final ProxyHealthServer health;
    private final MetricsServer metricsServer;
    private final HnsDataplane dataplane;
    private final ExecutorScheduler scheduler;
    private final StartupCheck startupCheck;
    private volatile boolean closed;

    private ProxyAgent(Setup setup) {
        ProxyConfig config = setup.config();
        String nodeName = setup.node().nodeName();
        KubernetesClient client = setup.client();
        PrometheusAgentMetrics metrics = new PrometheusAgentMetrics(BUILD);
        ApiTraffic apiTraffic = new ApiTraffic();
        apiTraffic.add(metrics);
        if (client == null) {
            client = new KubeClientFactory().create(ProxyPipeline.clientSettings(config), apiTraffic);
            // Closed last: the event recorder and servers added before it below close first.
            closeables.add(client);
        }
        KubeEventRecorder events = new KubeEventRecorder(client, nodeName);
        closeables.add(0, events);
        metricsServer = MetricsServer.create(config.metricsBindAddress(), config.bindAddressHardFail(), nodeName,
                metrics, events, () -> KubeProxyConfigurationFile.renderJson(config));
        ComponentPages pages = ComponentPages.of(config, BUILD.kubernetesVersion());
        metricsServer.serve(pages);
        metrics.featureGates(config.featureGates().statuses());
        closeables.add(0, metricsServer);
        health = ProxyHealthServer.create(config.healthzBindAddress(), config.syncPeriod(),
                config.bindAddressHardFail(), nodeName, metrics, events);
        closeables.add(0, health);
        ServiceHealthServer serviceHealth = new ServiceHealthServer(nodeName, setup.serviceHealthIps(),
                health::isProxyHealthy, events);
        closeables.add(0, serviceHealth);

        HnsClient hns = new MeteredHnsClient(setup.hns(), metrics, System::nanoTime);
        hns.setNativeCallListener(metrics::hnsNativeCall);
        ProxyPipeline pipeline;
        try {
            pipeline = ProxyPipeline.build(new ProxyPipeline.Inputs(config, setup.node(), hns,
                    OwnershipJournal.open(setup.stateDir()), setup.hostMac(), metrics, setup.drift(), Instant.now(),
                    setup.maxBackends()));
        } catch (RuntimeException e) {
            // e.g. --enable-dsr on an HNS without DSR: nothing started yet, but the client and servers exist.
            closeQuietly(closeables);
            throw e;
        }
        dataplane = pipeline.dataplane();
        VfpPolicyEngine engine = pipeline.engine();
        scheduler = new ExecutorScheduler("winproxy-sync");
        startupCheck = new StartupCheck(new StartupCheck.Setup(config, setup.node(), setup.hns(),
                setup.hns() instanceof HnsEmulator, setup.hostMac(), setup.stateDir(),
                StartupCheck.nodeRead(client, nodeName), events, metrics, Clock.systemUTC(), setup.maxBackends()));
        HeapReturn heapReturn = HeapReturn.forThisJvm();
        boolean vipConfigured = !setup.node().sourceVip().isEmpty();
        String[] lastVip = {""};
        Consumer<SyncReport> onSync = report -> {
            NodeNetwork network = engine.lastNodeNetwork();
            String vip = network == null ? "" : dataplane.describeSourceVip(network.sourceVip(), vipConfigured);
            if (!vip.equals(lastVip[0])) {
                lastVip[0] = vip;
                pages.sourceVip(vip);
                logger.atInfo().setMessage("Source VIP").addKeyValue("sourceVip", vip).log();
            }
            startupCheck.afterSync(report);
            heapReturn.afterSync(report.result());
            if (setup.onSync() != null) {
                setup.onSync().accept(report);
            }
        };
        loop = new ProxySyncLoop(engine, dataplane, health, serviceHealth, metrics, events, Clock.systemUTC(),
                List.of(IpFamily.IPV4), nodeName, ProxySyncLoop.Timing.of(config.minSyncPeriod(),
                config.syncPeriod()), scheduler, onSync);
        metricsServer.route(StatusEndpoint.PATH, new StatusEndpoint(loop)::handle);
        ClusterEventHandler handler = setup.handlerDecorator() == null ? loop : setup.handlerDecorator().apply(loop);
        watcher = new ClusterWatcher(client, pipeline.watchOptions(), handler, apiTraffic);
    }

    /**
     * Builds and starts the agent: servers first, then the sync loop, then the informers.
     *
     * @throws io.winproxy.agent.health.BindFailedException when a server cannot bind and hard-fail is set
     */
    public static ProxyAgent start(Setup setup) {
        BUILD.logVersion();
        ProxyAgent agent = new ProxyAgent(setup);
        try {
            agent.metricsServer.start();
            agent.health.start();
            agent.startupCheck.startPreflight();
            agent.loop.start();
            agent.watcher.start();
        } catch (RuntimeException e) {
            agent.close();
            throw e;
        }
        logger.atInfo().setMessage("Winproxy started").addKeyValue("node", setup.node().nodeName())
                .addKeyValue("network", setup.node().networkName())
                .addKeyValue("hnsVersion", setup.hns().capabilities().version())
                .addKeyValue("sourceVip", setup.node().sourceVip().isEmpty()
                        ? "from the CNI's endpoint, else assigned by HNS at the first sync (overlay)"
                        : setup.node().sourceVip() + " (--source-vip)")
                .addKeyValue("backendsPerLoadBalancer", agent.dataplane.backendLimit()).log();
        return agent;
    }

    public Optional<InetSocketAddress> healthAddress() {
        return health.boundAddress();
    }

    public Optional<InetSocketAddress> metricsAddress() {
        return metricsServer.boundAddress();
    }

    public HnsDataplane dataplane() {
        return dataplane;
    }

    /** The start-up check (preflight at start, consistency after the first sync). */
    public StartupCheck startupCheck() {
        return startupCheck;
    }

    /** Blocks until {@link #close()} has run (e.g. from the shutdown hook on SIGTERM or Ctrl+C). */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    public boolean awaitStop(Duration timeout) throws InterruptedException {
        return stopped.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Stops gracefully: informers, then the sync loop (a sync in progress finishes), then servers and the client.
     * HNS state is left in place. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        logger.info("Stopping winproxy; HNS state is left in place");
        watcher.close();
        loop.stop();
        scheduler.close(Duration.ofSeconds(30));
        closeQuietly(closeables);
        stopped.countDown();
    }

    private static void closeQuietly(List<AutoCloseable> closeables) {
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                logger.atDebug().setMessage("Closing failed").addKeyValue("resource", c).setCause(e).log();
            }
        }
    }
}
