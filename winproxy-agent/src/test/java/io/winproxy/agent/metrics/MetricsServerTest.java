package io.winproxy.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.health.BindAddress;
import io.winproxy.agent.health.BindFailedException;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.health.ProxierHealth;
import io.winproxy.agent.health.ProxyHealthServer;
import io.winproxy.agent.health.RecordingEvents;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.NodeInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

    private final PrometheusAgentMetrics metrics = new PrometheusAgentMetrics();
    private final RecordingEvents events = new RecordingEvents();
    private MetricsServer server;

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void servesThePrometheusTextFormatOnMetrics() {
        startServer();
        metrics.syncDuration(IpFamily.IPV4, Duration.ofMillis(12));
        metrics.hnsCall("HcnQueryLoadBalancerProperties", 0x80070490, Duration.ofMillis(2));

        HttpResponse<String> response = HttpProbe.get(port(), "/metrics");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type"))
                .hasValue("text/plain; version=0.0.4; charset=utf-8");
        Map<String, PrometheusTextParser.Family> families = PrometheusTextParser.parse(response.body());
        assertThat(families.get("kubeproxy_sync_proxy_rules_duration_seconds").value(
                "kubeproxy_sync_proxy_rules_duration_seconds_count", Map.of("ip_family", "IPv4"))).isEqualTo(1);
        assertThat(families.get("winproxy_hns_calls_total").value("winproxy_hns_calls_total",
                Map.of("operation", "HcnQueryLoadBalancerProperties", "code", "0x80070490"))).isEqualTo(1);
    }

    @Test
    void theProxyHealthCountersMatchTheResponsesServed() {
        startServer();
        ProxierHealth health = new ProxierHealth(Duration.ofSeconds(60), Clock.systemUTC());
        try (ProxyHealthServer healthServer = new ProxyHealthServer(new BindAddress("127.0.0.1", 0), health, false,
                "node-a", metrics, EventRecorder.NOOP, Duration.ofSeconds(1))) {
            healthServer.start();
            int healthPort = healthServer.boundAddress().orElseThrow().getPort();
            HttpProbe.get(healthPort, "/healthz"); // 503: the Node is not known yet
            healthServer.syncNode(new NodeInfo("node-a", null, null, null, null, false,
                    List.of()));
            HttpProbe.get(healthPort, "/healthz");
            HttpProbe.get(healthPort, "/healthz");
            HttpProbe.get(healthPort, "/livez");
            HttpProbe.get(healthPort, "/nothing");
        }

        Map<String, PrometheusTextParser.Family> families =
                PrometheusTextParser.parse(HttpProbe.get(port(), "/metrics").body());
        PrometheusTextParser.Family healthz = families.get("kubeproxy_proxy_healthz_total");
        assertThat(healthz.value(healthz.name(), Map.of("code", "200"))).isEqualTo(2);
        assertThat(healthz.value(healthz.name(), Map.of("code", "503"))).isEqualTo(1);
        PrometheusTextParser.Family livez = families.get("kubeproxy_proxy_livez_total");
        assertThat(livez.samples()).singleElement().satisfies(sample -> {
            assertThat(sample.labels()).isEqualTo(Map.of("code", "200"));
            assertThat(sample.value()).isEqualTo(1);
        });
    }

    @Test
    void answersProxyModeAndAPlainHealthzAndGos404Elsewhere() {
        startServer();

        HttpResponse<String> mode = HttpProbe.get(port(), "/proxyMode");
        assertThat(mode.statusCode()).isEqualTo(200);
        assertThat(mode.body()).isEqualTo("kernelspace");
        assertThat(mode.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
        assertThat(mode.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");

        HttpResponse<String> healthz = HttpProbe.get(port(), "/healthz");
        assertThat(healthz.statusCode()).isEqualTo(200);
        assertThat(healthz.body()).isEqualTo("ok");

        HttpResponse<String> other = HttpProbe.get(port(), "/metricsx");
        assertThat(other.statusCode()).isEqualTo(404);
        assertThat(other.body()).isEqualTo("404 page not found\n");
    }

    @Test
    void servesConfigzOnlyWhenGivenTheConfiguration() {
        startServer();
        assertThat(HttpProbe.get(port(), "/configz").statusCode()).isEqualTo(404);
        server.close();

        server = new MetricsServer(new BindAddress("127.0.0.1", 0), false, "node-a", metrics, events,
                Duration.ofMillis(50), () -> "{\"mode\":\"kernelspace\"}");
        server.start();
        HttpResponse<String> configz = HttpProbe.get(port(), "/configz");
        assertThat(configz.statusCode()).isEqualTo(200);
        assertThat(configz.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(configz.body()).isEqualTo("{\"kubeproxy.config.k8s.io\":{\"mode\":\"kernelspace\"}}");
    }

    @Test
    void answersHeadOnMetricsWithHeadersOnly() {
        startServer();

        HttpResponse<String> head = HttpProbe.send("HEAD", port(), "/metrics");

        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(Integer.parseInt(head.headers().firstValue("Content-Length").orElseThrow())).isPositive();
    }

    @Test
    void anEmptyBindAddressDisablesTheServer() {
        server = MetricsServer.create("", false, "node-a", metrics, events);
        server.start();

        assertThat(server.boundAddress()).isEmpty();
    }

    @Test
    void rejectsAnInvalidBindAddressNamingTheFlag() {
        assertThatThrownBy(() -> MetricsServer.create("127.0.0.1", false, "node-a", metrics, events))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("metricsBindAddress: must be IP:port, got \"127.0.0.1\"");
    }

    @Test
    void failsHardOnABindFailureWhenAskedToAndTellsTheNode() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server = new MetricsServer(new BindAddress("127.0.0.1", taken.getLocalPort()), true, "node-a", metrics,
                    events, Duration.ofMillis(50));

            assertThatThrownBy(server::start).isInstanceOf(BindFailedException.class)
                    .hasMessageStartingWith("failed to start metrics server on 127.0.0.1:" + taken.getLocalPort());
            assertThat(events.events()).singleElement().satisfies(event -> {
                assertThat(event.kind()).isEqualTo("Node");
                assertThat(event.reason()).isEqualTo("FailedToStartMetricServer");
            });
        }
    }

    private void startServer() {
        server = new MetricsServer(new BindAddress("127.0.0.1", 0), false, "node-a", metrics, events,
                Duration.ofMillis(50));
        server.start();
    }

    private int port() {
        return server.boundAddress().orElseThrow().getPort();
    }
}
