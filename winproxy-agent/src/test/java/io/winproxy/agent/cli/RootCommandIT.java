package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.winproxy.agent.Main;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The root command (the proxy itself) against an API server and an emulated host shared through its state file:
 * it programs the cluster, and a stop (in-process, or SIGTERM to a separate JVM) leaves HNS state in place.
 */
class RootCommandIT {
    @TempDir
    Path dir;

    private EmbeddedApiServer server;
    private Path hnsState;

    @BeforeEach
    void setUp() {
        server = EmbeddedApiServer.start(0);
        hnsState = dir.resolve("hns.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(hnsState).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        server.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("win-a").endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress("192.168.1.11").endAddress()
                .endStatus().build()).create();
        server.client().resource(AgentHarness.service("default", "web", "10.96.0.80", 80, 8080)).create();
        server.client().resource(AgentHarness.slice("default", "web-1", "web", 8080, "10.244.1.5@win-a")).create();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private List<String> args() {
        return List.of("--hostname-override=win-a", "--network-name=cbr0", "--master=" + server.url(),
                "--healthz-bind-address=", "--metrics-bind-address=", "--hns-state=" + hnsState,
                "--state-dir=" + dir.resolve("state"));
    }

    private int loadBalancers() {
        return HnsEmulator.builder().stateFile(hnsState).build().listLoadBalancerIds().size();
    }

    @Test
    void theProxyProgramsTheClusterAndAStopLeavesHnsStateInPlace() throws Exception {
        ShutdownSignal shutdown = new ShutdownSignal(false);
        Main main = new Main(new CliContext(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), Map.of(), shutdown));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> main.run(args().toArray(String[]::new)));
        try {
            Eventually.await(Duration.ofSeconds(60), "the service programmed", () -> loadBalancers() == 1);
        } finally {
            shutdown.fire();
        }
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
        assertThat(loadBalancers()).isEqualTo(1);
        assertThat(OwnershipJournal.open(dir.resolve("state")).loadBalancers()).hasSize(1);
    }

    @Test
    void sigtermStopsASeparateProcessGracefullyWithoutDeletingHnsState() throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), Main.class.getName()));
        command.addAll(args());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("agent.log").toFile()).start();
        try {
            Eventually.await(Duration.ofSeconds(90), "the service programmed by the separate process",
                    () -> hnsState.toFile().exists() && loadBalancers() == 1 && process.isAlive());
        } finally {
            process.destroy();
        }
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        if (!System.getProperty("os.name").startsWith("Windows")) {
            // As kube-proxy, which installs no SIGTERM handler: the process ends by the signal, 128 + 15
            // (docs/operations.md#exit-codes).
            assertThat(process.exitValue()).isEqualTo(143);
        }
        assertThat(java.nio.file.Files.readString(dir.resolve("agent.log")))
                .contains("HNS state is left in place");
        assertThat(loadBalancers()).isEqualTo(1);
        assertThat(new File(dir.resolve("state").toFile(), OwnershipJournal.FILE_NAME)).exists();
    }
}
