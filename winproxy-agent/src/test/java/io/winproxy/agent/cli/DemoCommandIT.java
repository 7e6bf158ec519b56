package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.Main;
import io.winproxy.agent.kube.Eventually;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code demo} end to end, in-process: embedded API server, real informers, the emulated host. */
class DemoCommandIT {
    @TempDir
    Path dir;

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void demoOnceOnTheBundledExampleClusterSyncsAndExits0() {
        CliRunner.Result r = CliRunner.run("demo", "--once", "--healthz-bind-address=", "--metrics-bind-address=",
                "--state-dir", dir.toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("node win-node-1").contains("10.96.0.10:53/UDP")
                .contains("kube-system/kube-dns:dns");
    }

    @Test
    void demoOnceOnAManifestsDirectoryProgramsItsServices() throws IOException {
        CliRunner.Result r = CliRunner.run("demo", "--once", "--manifests", SyncCluster.dir().toString(),
                "--healthz-bind-address=127.0.0.1:" + freePort(), "--metrics-bind-address=127.0.0.1:" + freePort(),
                "--hns-state", dir.resolve("hns.json").toString(), "--state-dir", dir.resolve("state").toString());
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).contains("node win-a").contains("10.96.0.80:80/TCP").contains("*:30080/TCP")
                .contains("health:  http://127.0.0.1:");

        CliRunner.Result plan = CliRunner.run("plan", "--manifests", SyncCluster.dir().toString(),
                "--hns-state", dir.resolve("hns.json").toString(), "--state-dir", dir.resolve("state").toString());
        assertThat(plan.exitCode()).as(plan.err()).isZero();
        assertThat(plan.out()).as("the demo's host needs no change").contains("Operations (0)");
    }

    @Test
    void demoFollowsEditsAndStopsCleanlyOnShutdown() throws Exception {
        Path manifests = Files.createDirectories(dir.resolve("manifests"));
        for (String f : new String[] {"nodes.yaml", "web.yaml"}) {
            Files.copy(SyncCluster.dir().resolve(f), manifests.resolve(f));
        }
        int healthPort = freePort();
        int metricsPort = freePort();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ShutdownSignal shutdown = new ShutdownSignal(false);
        Main main = new Main(new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), shutdown));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> main.run("demo", "--manifests",
                manifests.toString(), "--healthz-bind-address=127.0.0.1:" + healthPort,
                "--metrics-bind-address=127.0.0.1:" + metricsPort, "--state-dir", dir.resolve("state").toString()));
        try {
            Eventually.await(Duration.ofSeconds(60), "first table",
                    () -> out.toString(StandardCharsets.UTF_8).contains("10.96.0.80:80/TCP"));
            HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + healthPort + "/healthz")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(health.statusCode()).isEqualTo(200);
            // The agent reaches the demo's API with a client of its own, measured as on a node.
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + metricsPort + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(metrics).contains("rest_client_requests_total{").contains("method=\"GET\"");

            Files.copy(SyncCluster.dir().resolve("dns.yaml"), manifests.resolve("dns.yaml"));
            Eventually.await(Duration.ofSeconds(60), "the added service programmed",
                    () -> out.toString(StandardCharsets.UTF_8).contains("10.96.0.10:53/UDP"));
        } finally {
            shutdown.fire();
        }
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
    }
}
