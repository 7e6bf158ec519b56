package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.status.ServicePortStatus;
import io.winproxy.agent.status.StatusReport;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code winproxy status} end to end: the real agent in-process (informers against fabric8's CRUD mock server, the
 * sync loop, the dataplane over an emulated HNS kept in a state file), asked over its metrics server; then, with the
 * agent stopped, the same command computing the status from the API server, the HNS state file and the journal. Faults
 * and deletions go through the commands an operator runs ({@code hns fault}, {@code hns delete}) on the same host.
 */
class StatusCommandIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;
    private final KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher();
    private EmbeddedApiServer server;
    private HnsEmulator hns;
    private EmulatedHost host;
    private ProxyAgent agent;
    private Path stateFile;
    private Path stateDir;

    @BeforeEach
    void setUp() {
        server = EmbeddedApiServer.start(0, dispatcher);
        stateFile = dir.resolve("hns.json");
        stateDir = dir.resolve("state");
        hns = HnsEmulator.builder().stateFile(stateFile).build();
        host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        api().nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
        api().nodes().resource(AgentProcess.node("win-b", "10.244.2.0/24", "192.168.1.12")).create();
        serve("web", "10.96.0.80", "10.244.1.5@win-a", "10.244.2.7@win-b");
        serve("api", "10.96.0.90", "10.244.2.8@win-b");
        api().services().resource(AgentHarness.service("default", "empty", "10.96.0.70", 80, 8080)).create();
    }

    @AfterEach
    void tearDown() {
        if (agent != null) {
            agent.close();
        }
        server.close();
    }

    private KubernetesClient api() {
        return server.client();
    }

    private void serve(String name, String ip, String... endpoints) {
        api().services().resource(AgentHarness.service("default", name, ip, 80, 8080)).create();
        api().discovery().v1().endpointSlices().resource(AgentHarness.slice("default", name + "-1", name, 8080,
                endpoints)).create();
    }

    private String[] flags(String... more) {
        List<String> args = new ArrayList<>(List.of("--hostname-override=win-a", "--network-name=cbr0",
                "--master=" + server.url()));
        args.addAll(List.of(more));
        return args.toArray(String[]::new);
    }

    private void startAgent() throws Exception {
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse(flags("--healthz-bind-address=",
                "--metrics-bind-address=127.0.0.1:" + HttpProbe.freePort(), "--iptables-min-sync-period=100ms",
                "--iptables-sync-period=2s")), Map.of());
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "cbr0"), hns,
                HostMacLookup.emulated(), stateDir, null, List.of("127.0.0.1"), r -> { },
                handler -> new DemoCni(host, handler)));
    }

    private String agentAddress() {
        return "127.0.0.1:" + agent.metricsAddress().orElseThrow().getPort();
    }

    private StatusReport.Document askAgent() {
        CliRunner.Result r = CliRunner.run(Map.of(), concat(new String[] {"status", "-o", "json", "--agent",
                agentAddress()}, flags()));
        assertThat(r.exitCode()).as(r.err()).isZero();
        return StatusReport.Document.parse(r.out());
    }

    private static String[] concat(String[] a, String[] b) {
        List<String> all = new ArrayList<>(List.of(a));
        all.addAll(List.of(b));
        return all.toArray(String[]::new);
    }

    private static Map<String, String> states(StatusReport.Document doc) {
        Map<String, String> out = new TreeMap<>();
        doc.servicePorts().forEach(p -> out.put(p.servicePort(), p.state()));
        return out;
    }

    private static ServicePortStatus port(StatusReport.Document doc, String servicePort) {
        return doc.servicePorts().stream().filter(p -> p.servicePort().equals(servicePort)).findFirst().orElseThrow();
    }

    private String metrics() throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + agentAddress()
                + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    private List<Event> events(String reason) {
        return api().v1().events().inNamespace("default").list().getItems().stream()
                .filter(e -> reason.equals(e.getReason())).toList();
    }

    private static final Map<String, String> PROGRAMMED = Map.of("default/api:http", "programmed",
            "default/web:http", "programmed", "default/empty:http", "not programmed");

    @Test
    void theRunningAgentAndTheComputationWithoutItAgreeOnEveryPort() throws Exception {
        startAgent();
        Eventually.await(TIMEOUT, "every port programmed", () -> states(askAgent()).equals(PROGRAMMED));
        StatusReport.Document running = askAgent();
        assertThat(running.source()).isEqualTo("agent");
        assertThat(running.from()).isEqualTo("the running agent at " + agentAddress());
        ServicePortStatus web = port(running, "default/web:http");
        assertThat(web.latencyMillis()).isNotNull();
        assertThat(web.loadBalancers()).singleElement().satisfies(lb -> assertThat(hns.listLoadBalancers().stream()
                .map(HostComputeLoadBalancer::id)).anyMatch(id -> id.equalsIgnoreCase(lb.id())));
        assertThat(web.backends()).isEqualTo(new ServicePortStatus.Backends(2, 2, 2, 2));
        assertThat(port(running, "default/empty:http").reason()).isEqualTo("no ready endpoints");

        CliRunner.Result text = CliRunner.run(Map.of(), concat(new String[] {"status", "default/web", "--agent",
                agentAddress()}, flags()));
        assertThat(text.out().lines().findFirst().orElseThrow())
                .startsWith("Status from the running agent at " + agentAddress() + "; node win-a");
        assertThat(text.out()).contains("default/web:http (TCP)  PROGRAMMED").doesNotContain("default/api");

        agent.close();
        agent = null;
        CliRunner.Result offline = CliRunner.run(Map.of(), concat(new String[] {"status", "-o", "json",
                "--hns-state", stateFile.toString(), "--state-dir", stateDir.toString(), "--agent",
                "127.0.0.1:1"}, flags()));
        assertThat(offline.exitCode()).as(offline.err()).isZero();
        StatusReport.Document computed = StatusReport.Document.parse(offline.out());
        assertThat(computed.source()).isEqualTo("computed");
        assertThat(computed.from()).startsWith("computed without an agent (none answered at 127.0.0.1:1) from the"
                + " API server, the emulated HNS in " + stateFile);
        assertThat(states(computed)).isEqualTo(states(running));
        assertThat(port(computed, "default/web:http").loadBalancers()).isEqualTo(web.loadBalancers());
        CliRunner.Result offlineText = CliRunner.run(Map.of(), concat(new String[] {"status", "--hns-state",
                stateFile.toString(), "--state-dir", stateDir.toString(), "--agent", "127.0.0.1:1"}, flags()));
        assertThat(offlineText.out().lines().findFirst().orElseThrow())
                .startsWith("Status computed without an agent (none answered at 127.0.0.1:1)");
    }

    @Test
    void aFailingServiceIsFailedWithItsDecodedHresultCountedAndEventedThenProgrammedWhenTheFaultClears()
            throws Exception {
        startAgent();
        Eventually.await(TIMEOUT, "every port programmed", () -> states(askAgent()).equals(PROGRAMMED));
        CliRunner.Result fault = CliRunner.run("hns", "fault", "set", "--hns-state", stateFile.toString(),
                "--fail-next", "1000000", "--call", "create", "--object", "load-balancer", "--hresult",
                "HCN_E_PORT_ALREADY_EXISTS");
        assertThat(fault.exitCode()).as(fault.err()).isZero();
        serve("broken", "10.96.0.60", "10.244.1.5@win-a");
        Eventually.await(TIMEOUT, "default/broken failed",
                () -> "failed".equals(states(askAgent()).get("default/broken:http")));
        ServicePortStatus broken = port(askAgent(), "default/broken:http");
        assertThat(broken.lastError().hresult()).isEqualTo("0x803B0013");
        assertThat(broken.lastError().name()).isEqualTo("HCN_E_PORT_ALREADY_EXISTS");
        assertThat(broken.lastError().fix()).contains("winproxy hns list");
        assertThat(metrics()).contains("kubeproxy_sync_proxy_rules_winkernel_lb_create_failures_total{error="
                + "\"port_already_exists\",ip_family=\"IPv4\",lb_type=\"clusterip\"}");
        Eventually.await(TIMEOUT, "a FailedToProgram Event", () -> events("FailedToProgram").size() == 1);
        assertThat(events("FailedToProgram").get(0).getInvolvedObject().getName()).isEqualTo("broken");
        assertThat(events("FailedToProgram").get(0).getMessage()).contains("0x803B0013 HCN_E_PORT_ALREADY_EXISTS");

        CliRunner.Result cleared = CliRunner.run("hns", "fault", "clear", "--hns-state", stateFile.toString());
        assertThat(cleared.exitCode()).as(cleared.err()).isZero();
        Eventually.await(TIMEOUT, "default/broken programmed",
                () -> "programmed".equals(states(askAgent()).get("default/broken:http")));
        Eventually.await(TIMEOUT, "a Programmed Event", () -> events("Programmed").size() == 1);
        assertThat(events("Programmed").get(0).getInvolvedObject().getName()).isEqualTo("broken");
        assertThat(events("FailedToProgram")).hasSize(1);
        assertThat(metrics()).contains("winproxy_service_ports{state=\"failed\"} 0.0")
                .contains("winproxy_service_ports{state=\"programmed\"} 3.0");
    }

    @Test
    void anOwnedLoadBalancerDeletedBehindTheAgentsBackIsRecreatedCountedAndEvented() throws Exception {
        startAgent();
        Eventually.await(TIMEOUT, "every port programmed", () -> states(askAgent()).equals(PROGRAMMED));
        String id = port(askAgent(), "default/web:http").loadBalancers().get(0).id();
        CliRunner.Result deleted = CliRunner.run("hns", "delete", "load-balancer", id, "--hns-state",
                stateFile.toString(), "--state-dir", stateDir.toString());
        assertThat(deleted.exitCode()).as(deleted.err()).isZero();

        Eventually.await(TIMEOUT, "the repair counted", () -> {
            try {
                return metrics().contains("winproxy_hns_repairs_total{cause=\"deleted_out_of_band\","
                        + "object=\"load_balancer\"} 1.0");
            } catch (Exception e) {
                return false;
            }
        });
        assertThat(hns.listLoadBalancers().stream().map(HostComputeLoadBalancer::frontendVips))
                .anyMatch(vips -> vips.contains("10.96.0.80"));
        Eventually.await(TIMEOUT, "a Repaired Event", () -> events("Repaired").size() == 1);
        assertThat(events("Repaired").get(0).getInvolvedObject().getName()).isEqualTo("web");
        assertThat(events("Repaired").get(0).getMessage()).contains("10.96.0.80:80/TCP");
    }
}
