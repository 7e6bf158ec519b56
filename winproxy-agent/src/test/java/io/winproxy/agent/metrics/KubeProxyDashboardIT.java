package io.winproxy.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.cli.ProxyAgent;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every panel of the kubernetes-mixin "Kubernetes / Proxy" dashboard ({@code dashboards/proxy.libsonnet}) has series
 * on a real scrape of the running agent's {@code /metrics}, after the agent listed, watched and posted an event to
 * fabric8's CRUD mock server and programmed the emulated HNS.
 */
class KubeProxyDashboardIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    /** One selector of a dashboard query: the metric and the label matchers (regular expressions) it uses. */
    private record Query(String panel, String metric, Map<String, String> matchers) {
    }

    /** The dashboard's queries, minus the cluster/job/instance labels Prometheus adds to every series. */
    private static final List<Query> DASHBOARD = List.of(
            new Query("Rules Sync Rate", "kubeproxy_sync_proxy_rules_duration_seconds_count", Map.of()),
            new Query("Rule Sync Latency 99th Quantile", "kubeproxy_sync_proxy_rules_duration_seconds_bucket",
                    Map.of("le", ".+")),
            new Query("Network Programming Rate", "kubeproxy_network_programming_duration_seconds_count", Map.of()),
            new Query("Network Programming Latency 99th Quantile / instance variable",
                    "kubeproxy_network_programming_duration_seconds_bucket", Map.of("le", ".+")),
            new Query("Kube API Request Rate (2xx)", "rest_client_requests_total", Map.of("code", "2..")),
            new Query("Post Request Latency 99th Quantile", "rest_client_request_duration_seconds_bucket",
                    Map.of("verb", "POST", "le", ".+")),
            new Query("Get Request Latency 99th Quantile", "rest_client_request_duration_seconds_bucket",
                    Map.of("verb", "GET", "le", ".+")),
            new Query("Memory", "process_resident_memory_bytes", Map.of()),
            new Query("CPU usage", "process_cpu_seconds_total", Map.of()),
            new Query("Goroutines", "go_goroutines", Map.of()));

    @TempDir
    Path stateDir;

    private EmbeddedApiServer server;
    private ProxyAgent agent;

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void everyPanelOfTheKubeProxyDashboardHasSeries() throws Exception {
        server = EmbeddedApiServer.start(0);
        HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.ensureHostEndpoint("10.244.1.2");
        KubernetesClient api = server.client();
        api.nodes().resource(new NodeBuilder().withNewMetadata().withName("win-a").endMetadata().withNewSpec()
                .withPodCIDR("10.244.1.0/24").endSpec().withNewStatus().addNewAddress().withType("InternalIP")
                .withAddress("192.168.1.11").endAddress().endStatus().build()).create();
        int metricsPort = HttpProbe.freePort();
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=overlay", "--source-vip=10.244.1.2", "--master=" + server.url(),
                "--healthz-bind-address=", "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--iptables-min-sync-period=100ms", "--iptables-sync-period=2s"), Map.of());
        List<SyncReport> reports = new CopyOnWriteArrayList<>();
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "overlay"), hns,
                HostMacLookup.emulated(), stateDir, null, List.of("127.0.0.1"), reports::add, null));
        Eventually.await(TIMEOUT, "first sync", () -> reports.stream().anyMatch(r -> r.result().complete()));

        // An endpoint change with its trigger time: observed as network programming latency once programmed.
        api.resource(new ServiceBuilder().withNewMetadata().withNamespace("shop").withName("web").endMetadata()
                .withNewSpec().withType("ClusterIP").withClusterIP("10.96.0.10").withClusterIPs("10.96.0.10")
                .withIpFamilies("IPv4").addNewPort().withName("http").withProtocol("TCP").withPort(80)
                .withNewTargetPort(8080).endPort().endSpec().build()).create();
        api.resource(new EndpointSliceBuilder().withNewMetadata().withNamespace("shop").withName("web-1")
                .withLabels(Map.of("kubernetes.io/service-name", "web"))
                .withAnnotations(Map.of("endpoints.kubernetes.io/last-change-trigger-time", Instant.now().toString()))
                .endMetadata().withAddressType("IPv4").addNewPort().withName("http").withProtocol("TCP")
                .withPort(8080).endPort().addNewEndpoint().withAddresses("10.244.2.6").withNodeName("win-b")
                .withNewConditions(true, true, false).endEndpoint().build()).create();
        Eventually.await(TIMEOUT, "the network programming latency of the new slice", () -> PrometheusTextParser
                .parse(HttpProbe.get(metricsPort, "/metrics").body())
                .containsKey("kubeproxy_network_programming_duration_seconds"));
        // The "Starting" event on the Node is the agent's POST.
        Eventually.await(TIMEOUT, "the POST of the Starting event", () -> PrometheusTextParser
                .parse(HttpProbe.get(metricsPort, "/metrics").body()).values().stream()
                .flatMap(f -> f.samples().stream())
                .anyMatch(s -> s.name().equals("rest_client_requests_total")
                        && "POST".equals(s.labels().get("method"))));

        Map<String, PrometheusTextParser.Family> families =
                PrometheusTextParser.parse(HttpProbe.get(metricsPort, "/metrics").body());
        List<PrometheusTextParser.Sample> samples = families.values().stream().flatMap(f -> f.samples().stream())
                .toList();
        for (Query query : DASHBOARD) {
            assertThat(samples).as("panel \"%s\": %s%s", query.panel(), query.metric(), query.matchers())
                    .anySatisfy(sample -> {
                        assertThat(sample.name()).isEqualTo(query.metric());
                        query.matchers().forEach((label, regex) -> assertThat(sample.labels().get(label))
                                .isNotNull().matches(Pattern.compile(regex)));
                    });
        }
        assertThat(samples).filteredOn(s -> s.name().equals("rest_client_requests_total"))
                .allSatisfy(s -> assertThat(s.labels().get("host")).isEqualTo("127.0.0.1:" + server.port()));
        assertThat(families.get("kubernetes_build_info").samples()).singleElement()
                .satisfies(s -> assertThat(s.labels()).containsEntry("git_version", "v1.33.0").containsKey("platform"));
        assertThat(families).containsKeys("process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
                "process_start_time_seconds", "jvm_memory_used_bytes", "jvm_threads_current");
    }
}
