package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.Main;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The user journey of docs/demo.md "Run your kube-proxy command line": {@code demo --api-only} serves the example
 * cluster and keeps an emulated host in a state file; the root command, started with the Calico HostProcess
 * kube-proxy command line (env KUBE_NETWORK, WinDSR + WinOverlay, --enable-dsr, --source-vip) plus
 * {@code --hns-state}, programs it; a restart makes no HNS writes; a load balancer deleted behind its back comes
 * back within one sync period; {@code cleanup} removes only what it owns and {@code cleanup --all} removes the rest.
 */
class KubeProxyCommandLineJourneyIT {
    private static final int EXAMPLE_LOAD_BALANCERS = 10;

    @TempDir
    Path dir;

    private final List<Running> running = new ArrayList<>();

    /** A command running in-process with its own shutdown signal and captured output. */
    private record Running(ShutdownSignal shutdown, CompletableFuture<Integer> exit, ByteArrayOutputStream out) {
        int stop() throws Exception {
            shutdown.fire();
            return exit.get(60, TimeUnit.SECONDS);
        }
    }

    private Running start(Map<String, String> env, List<String> args) {
        ShutdownSignal shutdown = new ShutdownSignal(false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Main main = new Main(new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(out, true, StandardCharsets.UTF_8), env, shutdown));
        Running r = new Running(shutdown, CompletableFuture.supplyAsync(() -> main.run(args.toArray(String[]::new))),
                out);
        running.add(r);
        return r;
    }

    @AfterEach
    void stopEverything() {
        for (Running r : running) {
            r.shutdown().fire();
        }
    }

    private Path state() {
        return dir.resolve("hns.json");
    }

    private HnsClient hns() {
        return HnsEmulator.builder().stateFile(state()).build();
    }

    private Set<String> loadBalancerIds() {
        return Files.exists(state()) ? new HashSet<>(hns().listLoadBalancerIds()) : Set.of();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static String get(String url) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
            return response.body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** The Calico HostProcess launcher's kube-proxy flags (windows-operations.md §1.1) plus winproxy's host flag. */
    private List<String> calicoCommandLine(int metricsPort) {
        return List.of("--hostname-override=win-node-1", "--v=4", "--proxy-mode=kernelspace",
                "--kubeconfig=" + dir.resolve("kubeconfig"), "--feature-gates=WinDSR=true,WinOverlay=true",
                "--enable-dsr=true", "--source-vip=10.244.1.2", "--hns-state=" + state(),
                "--healthz-bind-address=", "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--iptables-sync-period=3s");
    }

    @Test
    void aKubeProxyCommandLineProgramsRestartsWithoutChurnRepairsDriftAndCleansUpOnlyWhatItOwns() throws Exception {
        Running api = start(Map.of("KUBE_NETWORK", "Calico"), List.of("demo", "--api-only", "--api-port=0",
                "--write-kubeconfig=" + dir.resolve("kubeconfig"), "--hns-state=" + state()));
        Eventually.await(Duration.ofSeconds(60), "the demo API to write its kubeconfig",
                () -> Files.exists(dir.resolve("kubeconfig")) && api.out().toString().contains("Start the proxy"));
        assertThat(api.out().toString()).contains("Overlay network Calico").contains("--source-vip=10.244.1.2");
        Map<String, String> env = Map.of("KUBE_NETWORK", "Calico");

        int metricsPort = freePort();
        Running proxy = start(env, calicoCommandLine(metricsPort));
        Eventually.await(Duration.ofSeconds(60), "the example cluster programmed",
                () -> loadBalancerIds().size() == EXAMPLE_LOAD_BALANCERS);
        Set<String> programmed = loadBalancerIds();
        assertThat(proxy.stop()).isZero();
        assertThat(loadBalancerIds()).as("a stop leaves HNS state in place").isEqualTo(programmed);

        int restartMetricsPort = freePort();
        Running restarted = start(env, calicoCommandLine(restartMetricsPort));
        String metrics = "http://127.0.0.1:" + restartMetricsPort + "/metrics";
        Eventually.await(Duration.ofSeconds(60), "the restarted proxy's first successful sync",
                () -> get(metrics).lines().anyMatch(l ->
                        l.startsWith("kubeproxy_sync_proxy_rules_last_timestamp_seconds{") && !l.endsWith(" 0.0")));
        assertThat(get(metrics).lines().filter(l -> l.startsWith("winproxy_hns_calls_total")))
                .as("no HNS writes after the restart")
                .noneMatch(l -> l.contains("Create") || l.contains("Delete") || l.contains("Modify"));
        assertThat(loadBalancerIds()).isEqualTo(programmed);

        String victim = programmed.iterator().next();
        CliRunner.Result deleted = CliRunner.run("hns", "delete", "load-balancer", victim, "--hns-state",
                state().toString());
        assertThat(deleted.exitCode()).as(deleted.err()).isZero();
        Eventually.await(Duration.ofSeconds(30), "the deleted load balancer repaired within a sync period",
                // Re-created under its old ID (remembered as vanished), so that HNS restoring it cannot duplicate it.
                () -> loadBalancerIds().size() == EXAMPLE_LOAD_BALANCERS && loadBalancerIds().contains(victim));
        assertThat(restarted.stop()).isZero();

        HnsClient host = hns();
        String nodePortEndpoint = host.listLoadBalancers().get(0).hostComputeEndpoints().get(0);
        String leftover = host.createLoadBalancer(HostComputeLoadBalancer.of(List.of(nodePortEndpoint), "",
                "10.96.99.99", new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 8080, 80,
                        LoadBalancerPortMapping.DISTRIBUTION_NONE, 0), 0)).id();
        CliRunner.Result cleanup = CliRunner.run("cleanup", "--hns-state", state().toString());
        assertThat(cleanup.exitCode()).as(cleanup.err()).isZero();
        assertThat(cleanup.out()).contains("Removed " + EXAMPLE_LOAD_BALANCERS + " load balancer(s)")
                .contains("Left 1 unowned load balancer(s)").contains(leftover);
        assertThat(loadBalancerIds()).containsExactly(leftover);

        CliRunner.Result all = CliRunner.run("cleanup", "--all", "--hns-state", state().toString());
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(loadBalancerIds()).isEmpty();

        assertThat(api.stop()).isZero();
        assertThat(state()).as("the emulated host outlives the demo API").exists();
    }
}
