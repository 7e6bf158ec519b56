package io.winproxy.agent.cli;

import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.DemoCluster;
import io.winproxy.agent.demo.DemoKubeconfig;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.NodeInfo;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code demo --api-only}: everything of the demo except the proxy. The embedded API server (on {@code --api-port},
 * with a kubeconfig for it written to {@code --write-kubeconfig}), the manifests follower, and an emulated host in
 * the {@code --hns-state} file that a CNI stand-in keeps equal to the cluster (network from the Nodes, local
 * endpoints for this node's pods, the overlay source VIP endpoint). The user then starts the real root command in
 * another terminal with a kube-proxy command line plus {@code --hns-state FILE}. Runs until Ctrl+C / SIGTERM and
 * leaves the state file in place.
 */
record ApiOnlyDemo(CliContext context, ProxyFlags flags, HnsHostOptions host) {
    private static final Logger logger = LoggerFactory.getLogger(ApiOnlyDemo.class);

    /** Runs until the shutdown signal fires; returns 0. */
    int run(Path manifests, int apiPort, Path kubeconfig) throws InterruptedException, ConfigException {
        Path stateFile = host.hnsState().orElseThrow();
        ProxyConfig config = ConfigResolver.resolve(flags, context.env());
        DemoCluster cluster = DemoCluster.start(manifests, apiPort, true);
        EmulatedHostFollower follower = null;
        try {
            List<NodeInfo> nodes = EmulatedHostFollower.nodes(cluster.client());
            String nodeName = EmulatedCluster.nodeName(config.configuredHostnameOverride(), nodes);
            HnsEmulator hns = HnsEmulator.builder().stateFile(stateFile).build();
            EmulatedHost emulated = new EmulatedHost(hns, EmulatedCluster.networkType(host.emulatedNetworkType()),
                    config.networkName().isEmpty() ? null : config.networkName(), nodeName);
            follower = new EmulatedHostFollower(cluster.client(), emulated);
            follower.syncOnce();
            String sourceVip = null;
            if (emulated.type() == EmulatedHost.NetworkType.OVERLAY) {
                sourceVip = config.sourceVip().isBlank() ? EmulatedCluster.sourceVipFor(nodes, nodeName).orElse(null)
                        : config.sourceVip();
                if (sourceVip != null) {
                    emulated.ensureHostEndpoint(sourceVip);
                }
            }
            follower.follow(Duration.ofSeconds(1));
            if (kubeconfig != null) {
                DemoKubeconfig.write(kubeconfig, cluster.apiUrl());
            }
            printInstructions(cluster, emulated, stateFile, kubeconfig, sourceVip);

            CountDownLatch stop = new CountDownLatch(1);
            CountDownLatch stopped = new CountDownLatch(1);
            EmulatedHostFollower running = follower;
            context.shutdown().onShutdown(() -> {
                stop.countDown();
                try {
                    stopped.await(10, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                stop.await();
            } finally {
                running.close();
                cluster.close();
                logger.atInfo().setMessage("Demo API stopped; the emulated host stays")
                        .addKeyValue("path", stateFile).log();
                stopped.countDown();
            }
            return 0;
        } catch (RuntimeException e) {
            if (follower != null) {
                follower.close();
            }
            cluster.close();
            throw e;
        }
    }

    private void printInstructions(DemoCluster cluster, EmulatedHost emulated, Path stateFile, Path kubeconfig,
                                   String sourceVip) {
        PrintStream out = context.out();
        out.printf("winproxy demo (API only): node %s, %s network %s in %s%n", emulated.thisNode(),
                emulated.type().hcnType(), emulated.networkName(), stateFile);
        out.println("  API server: " + cluster.apiUrl());
        if (kubeconfig != null) {
            out.println("  kubeconfig: " + kubeconfig);
        }
        out.println("  manifests:  " + cluster.manifestsDir());
        StringBuilder cmd = new StringBuilder("java -jar winproxy-agent.jar --proxy-mode=kernelspace")
                .append(" --hostname-override=").append(emulated.thisNode())
                .append(kubeconfig != null ? " --kubeconfig=" + kubeconfig : " --master=" + cluster.apiUrl())
                .append(" --network-name=").append(emulated.networkName());
        if (sourceVip != null) {
            cmd.append(" --feature-gates=WinOverlay=true --source-vip=").append(sourceVip);
        }
        cmd.append(" --hns-state=").append(stateFile);
        out.println("Start the proxy in another terminal, for example:");
        out.println("  " + cmd);
        out.println("Following the manifests; Ctrl+C to stop (the emulated host stays in the state file).");
        out.flush();
    }
}
