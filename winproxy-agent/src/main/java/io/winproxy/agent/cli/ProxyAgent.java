package io.winproxy.agent.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
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
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.agent.kube.KubeEventRecorder;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.agent.metrics.BuildInfo;
import io.winproxy.agent.metrics.MetricsServer;
import io.winproxy.agent.metrics.PrometheusAgentMetrics;
import io.winproxy.agent.sync.ExecutorScheduler;
import io.winproxy.agent.sync.HostMac;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.agent.sync.ProxySyncLoop;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.agent.sync.VfpPolicyEngine;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.desired.PolicyCalculator;
import io.winproxy.policy.desired.PolicyConfig;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.spi.LoadBalancerFeature;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
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
     * @param networkName     the HNS network to program
     * @param client          an API client to use (the demo's), or null to build one from the configuration
     * @param serviceHealthIps IPs of the per-service health check listeners (empty: all addresses)
     * @param features        load-balancer features of the policy (e.g. DSR), in order
     * @param onSync          called on the sync thread after every sync that reached HNS; may be null
     * @param handlerDecorator wraps the sync loop's event handler (the demo's CNI simulation); may be null
     */
    public record Setup(ProxyConfig config, HnsClient hns, String networkName, Path stateDir,
                        KubernetesClient client, List<String> serviceHealthIps, List<LoadBalancerFeature> features,
                        Consumer<SyncReport> onSync, UnaryOperator<ClusterEventHandler> handlerDecorator,
                        DriftBudget drift) {
        /** A setup with the default drift budget. */
        public Setup(ProxyConfig config, HnsClient hns, String networkName, Path stateDir, KubernetesClient client,
                     List<String> serviceHealthIps, List<LoadBalancerFeature> features, Consumer<SyncReport> onSync,
                     UnaryOperator<ClusterEventHandler> handlerDecorator) {
            this(config, hns, networkName, stateDir, client, serviceHealthIps, features, onSync, handlerDecorator,
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
    private volatile boolean closed;

    private ProxyAgent(Setup setup) {
        ProxyConfig config = setup.config();
        String nodeName = config.hostnameOverride();
        KubernetesClient client = setup.client();
        PrometheusAgentMetrics metrics = new PrometheusAgentMetrics(BUILD);
        ApiTraffic apiTraffic = new ApiTraffic();
        apiTraffic.add(metrics);
        if (client == null) {
            client = new KubeClientFactory().create(new KubeClientSettings(config.kubeconfig(), config.master(),
                    config.clientConnection().contentType(), config.clientConnection().acceptContentTypes(),
                    config.clientConnection().qps(), config.clientConnection().burst()), apiTraffic);
            // Closed last: the event recorder and servers added before it below close first.
            closeables.add(client);
        }
        KubeEventRecorder events = new KubeEventRecorder(client, nodeName);
        closeables.add(0, events);
        metricsServer = MetricsServer.create(config.metricsBindAddress(), config.bindAddressHardFail(), nodeName,
                metrics, events, () -> KubeProxyConfigurationFile.renderJson(config));
        closeables.add(0, metricsServer);
        health = ProxyHealthServer.create(config.healthzBindAddress(), config.syncPeriod(),
                config.bindAddressHardFail(), nodeName, metrics, events);
        closeables.add(0, health);
        ServiceHealthServer serviceHealth = new ServiceHealthServer(nodeName, setup.serviceHealthIps(),
                health::isProxyHealthy, events);
        closeables.add(0, serviceHealth);

        HnsClient hns = new MeteredHnsClient(setup.hns(), metrics, System::nanoTime);
        hns.setNativeCallListener(metrics::hnsNativeCall);
        OwnershipJournal journal = OwnershipJournal.open(setup.stateDir());
        dataplane = new HnsDataplane(hns, setup.networkName(), journal, config.syncPeriod(), System::nanoTime,
                setup.drift(), () -> UUID.randomUUID().toString());
        dataplane.setSourceVip(config.sourceVip());

        HnsCapabilities caps = hns.capabilities();
        Set<String> gates = config.featureGates().effective().entrySet().stream().filter(Map.Entry::getValue)
                .map(Map.Entry::getKey).collect(Collectors.toSet());
        PolicyConfig policyConfig = new PolicyConfig(config.forwardHealthCheckVip(),
                config.healthzPort().orElse(10256), caps.dsr(), caps.ipv6DualStack(), caps.sessionAffinity(),
                caps.modifyLoadBalancer(), gates, PolicyConfig.DEFAULT_MAX_BACKENDS);
        // The emulated host has no real interfaces: its overlay gets no host MAC, as plan and trace assume.
        UnaryOperator<String> hostMacOf = setup.hns() instanceof HnsEmulator ? ip -> "" : HostMac::of;
        NodeNetworkFactory nodeNetworks = new NodeNetworkFactory(nodeName, config.sourceVip(),
                config.rootHnsEndpointName(), nodeIpOverride(config.bindAddress()), hostMacOf);
        // Health and metrics report IPv4 until the first sync; from then on the families each sync decides (IPv6 too
        // when HNS supports dual-stack, the network is not overlay and the node has an IPv6 address).
        VfpPolicyEngine engine = new VfpPolicyEngine(new PolicyCalculator(policyConfig, setup.features()),
                nodeNetworks, metrics, Instant.now(), caps.ipv6DualStack());
        scheduler = new ExecutorScheduler("winproxy-sync");
        loop = new ProxySyncLoop(engine, dataplane, health, serviceHealth, metrics, events, Clock.systemUTC(),
                List.of(IpFamily.IPV4), nodeName, ProxySyncLoop.Timing.of(config.minSyncPeriod(),
                config.syncPeriod()), scheduler, setup.onSync());
        ClusterEventHandler handler = setup.handlerDecorator() == null ? loop : setup.handlerDecorator().apply(loop);
        watcher = new ClusterWatcher(client, new WatchOptions(nodeName, config.serviceProxyName(),
                config.configSyncPeriod()), handler, apiTraffic);
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
            agent.loop.start();
            agent.watcher.start();
        } catch (RuntimeException e) {
            agent.close();
            throw e;
        }
        logger.info("winproxy started on node {} (network {}, HNS {})", setup.config().hostnameOverride(),
                setup.networkName(), setup.hns().capabilities().version());
        return agent;
    }

    private static String nodeIpOverride(String bindAddress) {
        if (bindAddress == null || bindAddress.isEmpty() || "0.0.0.0".equals(bindAddress) || "::".equals(bindAddress)) {
            return "";
        }
        return bindAddress;
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
        for (AutoCloseable c : closeables) {
            try {
                c.close();
            } catch (Exception e) {
                logger.debug("Closing {} failed", c, e);
            }
        }
        stopped.countDown();
    }
}
