package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.winproxy.agent.cli.LiveWinA;
import io.winproxy.agent.cli.ProxyAgent;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code check} against a live API server (fabric8's CRUD mock server): the API server and Node preflight checks. */
class CheckLiveIT {
    @TempDir
    Path dir;

    private EmbeddedApiServer server;
    private Path kubeconfig;
    private Path hnsState;

    @BeforeEach
    void setUp() throws Exception {
        LiveWinA live = LiveWinA.start(dir);
        server = live.server();
        kubeconfig = live.kubeconfig();
        hnsState = live.hnsState();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private Cli.Result check(String node) {
        return Cli.run("check", "--kubeconfig", kubeconfig.toString(), "--hostname-override", node, "--hns-state",
                hnsState.toString(), "--network-name", "cbr0");
    }

    @Test
    void theApiServerAnswersAndTheNodeExists() {
        Cli.Result r = check("win-a");

        assertThat(r.out()).contains("PASS preflight/api-server: the API server (the kubeconfig " + kubeconfig
                + ") answered with this node's credentials").contains("PASS preflight/node: Node win-a exists");
    }

    @Test
    void aHostnameOverrideThatNamesNoNodeFailsWithTheFix() {
        Cli.Result r = check("win-zzz");

        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.out()).contains("FAIL preflight/node: Node win-zzz does not exist in the kubeconfig")
                .contains("fix: set --hostname-override to the Node's name");
    }

    @Test
    void anApiServerThatDoesNotAnswerFailsPreflightAndSkipsWhatNeedsTheCluster() {
        server.close();

        Cli.Result r = check("win-a");

        assertThat(r.exitCode()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("FAIL preflight/api-server: cannot read the cluster from the kubeconfig "
                + kubeconfig).contains("-- consistency: not run (the cluster could not be read)")
                .contains("PASS preflight/network: HNS network cbr0 exists");
    }

    @Test
    void theAgentsStartUpPreflightOnAHostWithOnlyExternalEmitsOneNodeEventWithTheFix() throws Exception {
        Path state = dir.resolve("external.json");
        HnsEmulator hns = HnsEmulator.builder().stateFile(state).build();
        new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "External", "win-a")
                .syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=External", "--master=" + server.url(), "--healthz-bind-address=",
                "--metrics-bind-address="), Map.of());

        try (ProxyAgent agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "External"), hns,
                HostMacLookup.emulated(), dir.resolve("state"), null, List.of(), null, null))) {
            List<Event> failed = awaitEvents("CheckFailed");
            assertThat(failed).singleElement().satisfies(e -> {
                assertThat(e.getType()).isEqualTo("Warning");
                assertThat(e.getInvolvedObject().getKind()).isEqualTo("Node");
                assertThat(e.getInvolvedObject().getName()).isEqualTo("win-a");
                assertThat(e.getMessage()).startsWith("preflight/network: HNS network External (L2Bridge, ")
                        .contains("; fix: set --network-name to the CNI's network");
            });
        }
    }

    private List<Event> awaitEvents(String reason) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
        List<Event> found = List.of();
        while (System.nanoTime() < deadline) {
            found = server.client().v1().events().inAnyNamespace().list().getItems().stream()
                    .filter(e -> reason.equals(e.getReason())).toList();
            if (!found.isEmpty()) {
                // Give a second, wrongly repeated Event the time to arrive before the count is asserted.
                Thread.sleep(500);
                return server.client().v1().events().inAnyNamespace().list().getItems().stream()
                        .filter(e -> reason.equals(e.getReason())).toList();
            }
            Thread.sleep(100);
        }
        return found;
    }
}
