package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.winproxy.agent.Main;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.hns.emulator.HnsEmulator;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code plan} and {@code trace} read the live cluster as the proxy does (kubeconfig, the config file, the proxy's
 * watch selection) and the host's journal where the proxy keeps it, so that after the agent converged they agree
 * with it: no operations, the same Services, NodePorts traced at this node's real IP.
 */
class LivePlanAndTraceIT {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    private EmbeddedApiServer server;
    private Path hnsState;
    private Path kubeconfig;

    @BeforeEach
    void setUp() throws Exception {
        LiveWinA live = LiveWinA.start(dir);
        server = live.server();
        kubeconfig = live.kubeconfig();
        hnsState = live.hnsState();
        live.host().syncLocalEndpoints(Set.of("10.244.1.5", "10.244.1.6"));
        server.client().resource(AgentHarness.service("default", "web", "10.96.0.80", 80, 8080)).create();
        server.client().resource(AgentHarness.slice("default", "web-1", "web", 8080, "10.244.1.5@win-a")).create();
        server.client().resource(nodePort("default", "shop", "10.96.0.90", 30090)).create();
        server.client().resource(AgentHarness.slice("default", "shop-1", "shop", 8080, "10.244.1.6@win-a")).create();
        Service other = AgentHarness.service("default", "other", "10.96.0.99", 80, 8080);
        other.getMetadata().setLabels(Map.of(WatchOptions.SERVICE_PROXY_NAME_LABEL, "other-proxy"));
        server.client().resource(other).create();
        // The EndpointSlice controller copies the Service's labels to its slices.
        EndpointSlice otherSlice = AgentHarness.slice("default", "other-1", "other", 8080, "10.244.1.5@win-a");
        otherSlice.getMetadata().setLabels(Map.of("kubernetes.io/service-name", "other",
                WatchOptions.SERVICE_PROXY_NAME_LABEL, "other-proxy"));
        server.client().resource(otherSlice).create();
    }

    @AfterEach
    void tearDown() {
        server.close();
    }

    private static Service nodePort(String namespace, String name, String clusterIp, int nodePort) {
        return new ServiceBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withType("NodePort").withClusterIP(clusterIp).withClusterIPs(clusterIp)
                .withIpFamilies("IPv4").addNewPort().withName("http").withProtocol("TCP").withPort(80)
                .withNodePort(nodePort).withNewTargetPort(8080).endPort().endSpec().build();
    }

    /** The proxy's command line on this node: no --state-dir, so the journal lives beside the host's state. */
    private List<String> proxyFlags(String... more) {
        List<String> args = new ArrayList<>(List.of("--hostname-override=win-a", "--network-name=cbr0",
                "--kubeconfig=" + kubeconfig, "--healthz-bind-address=", "--metrics-bind-address=",
                "--hns-state=" + hnsState));
        args.addAll(List.of(more));
        return args;
    }

    private void runAgentUntil(int loadBalancers, List<String> args) throws Exception {
        ShutdownSignal shutdown = new ShutdownSignal(false);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Main main = new Main(new CliContext(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), shutdown));
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> main.run(args.toArray(String[]::new)));
        try {
            Eventually.await(Duration.ofSeconds(30), loadBalancers + " load balancers programmed",
                    () -> exit.isDone() || Files.exists(hnsState) && HnsEmulator.builder().stateFile(hnsState)
                            .build().listLoadBalancerIds().size() == loadBalancers);
        } finally {
            shutdown.fire();
        }
        assertThat(exit.get(30, TimeUnit.SECONDS)).as(err.toString(StandardCharsets.UTF_8)).isZero();
        assertThat(HnsEmulator.builder().stateFile(hnsState).build().listLoadBalancerIds()).hasSize(loadBalancers);
    }

    private static JsonNode json(CliRunner.Result r) throws Exception {
        assertThat(r.exitCode()).as("exit code; stderr: %s", r.err()).isZero();
        return MAPPER.readTree(r.out());
    }

    private static Set<String> services(JsonNode plan) {
        Set<String> services = new TreeSet<>();
        plan.get("loadBalancers").forEach(lb -> services.add(lb.get("service").asText() + " "
                + lb.get("kind").asText()));
        return services;
    }

    @Test
    void onAConvergedHostPlanShowsNoOperationsAndTheServicesTheAgentProgrammed() throws Exception {
        // web (ClusterIP), shop (ClusterIP + NodePort); other is labelled for another proxy.
        runAgentUntil(3, proxyFlags());

        List<String> plan = new ArrayList<>(List.of("plan"));
        plan.addAll(proxyFlags("-o", "json"));
        JsonNode result = json(CliRunner.run(plan.toArray(String[]::new)));

        assertThat(result.get("operations")).as("operations on a converged host").isEmpty();
        assertThat(services(result)).containsExactly("default/shop ClusterIP", "default/shop NodePort",
                "default/web ClusterIP");
    }

    @Test
    void aServiceRemovedFromTheClusterIsPlannedForDeletionFromTheJournalBesideTheHostState() throws Exception {
        runAgentUntil(3, proxyFlags());
        server.client().services().inNamespace("default").withName("web").delete();

        List<String> plan = new ArrayList<>(List.of("plan"));
        plan.addAll(proxyFlags("-o", "json"));
        JsonNode result = json(CliRunner.run(plan.toArray(String[]::new)));

        List<String> ops = new ArrayList<>();
        result.get("operations").forEach(op -> ops.add(op.get("op").asText()));
        assertThat(ops).containsExactly("delete-load-balancer");
    }

    @Test
    void traceFindsTheNodePortAtThisNodesIpFromItsNodeObject() throws Exception {
        runAgentUntil(3, proxyFlags());

        List<String> trace = new ArrayList<>(List.of("trace", "--src", "10.0.0.7", "--dst", "192.168.1.11:30090"));
        trace.addAll(proxyFlags("-o", "json"));
        JsonNode result = json(CliRunner.run(trace.toArray(String[]::new)));

        assertThat(result.get("verdict").asText()).isEqualTo("forwarded");
        assertThat(result.get("loadBalancer").get("service").asText()).isEqualTo("default/shop");
        assertThat(result.get("backends").get(0).asText()).isEqualTo("10.244.1.6:8080");
    }

    @Test
    void theConfigFilesServiceProxyNameSelectsTheSameServicesForTheAgentAndPlan() throws Exception {
        Path config = dir.resolve("config.yaml");
        Files.writeString(config, String.join("\n",
                "apiVersion: kubeproxy.config.k8s.io/v1alpha1",
                "kind: KubeProxyConfiguration",
                "mode: kernelspace",
                "hostnameOverride: win-a",
                "serviceProxyName: other-proxy",
                "healthzBindAddress: \"\"",
                "metricsBindAddress: \"\"",
                "clientConnection:",
                "  kubeconfig: " + kubeconfig,
                "winkernel:",
                "  networkName: cbr0",
                ""));
        List<String> args = List.of("--config=" + config, "--hns-state=" + hnsState);
        runAgentUntil(1, args);

        List<String> plan = new ArrayList<>(List.of("plan", "-o", "json"));
        plan.addAll(args);
        JsonNode result = json(CliRunner.run(plan.toArray(String[]::new)));

        assertThat(services(result)).containsExactly("default/other ClusterIP");
        assertThat(result.get("operations")).isEmpty();
    }

    @Test
    void withoutAnyClusterSourcePlanSaysSoInOneLine() {
        assumeThat(Files.exists(Path.of(System.getProperty("user.home"), ".kube", "config")))
                .as("a default kubeconfig would be used, as the proxy uses it").isFalse();
        assumeThat(System.getenv("KUBERNETES_SERVICE_HOST")).isNull();

        CliRunner.Result r = CliRunner.run("plan", "--hns-state=" + hnsState, "--network-name=cbr0");

        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err().strip()).doesNotContain("\n").contains("--kubeconfig").contains("--manifests");
        assertThat(r.out()).isEmpty();
    }
}
