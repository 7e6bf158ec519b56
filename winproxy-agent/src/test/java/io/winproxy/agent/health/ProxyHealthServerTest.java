package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.agent.kube.EventRecorder;
import io.winproxy.policy.model.IpFamily;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ports upstream's TestHealthzServer and TestLivezServer (healthcheck_test.go) over real HTTP. */
class ProxyHealthServerTest {

    private static final Instant START = Instant.parse("2024-05-01T10:00:00Z");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final FakeClock clock = new FakeClock(START, ZoneOffset.UTC);
    private final CountingMetrics metrics = new CountingMetrics();
    private final RecordingEvents events = new RecordingEvents();
    private final Map<Integer, Integer> expectedCounts = new HashMap<>();
    private ProxyHealthServer server;

    @AfterEach
    void closeServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void healthzFollowsProxierHealthAndNodeEligibility() throws IOException {
        startServer();
        server.syncNode(ProxierHealthTest.node(false, List.of()));

        runProxyHealthSequence("/healthz");

        server.syncNode(ProxierHealthTest.node(false, List.of("other")));
        expectHealthy("/healthz", Map.of("IPv4", true, "IPv6", true));
        server.syncNode(ProxierHealthTest.node(false, List.of(ProxierHealth.TO_BE_DELETED_TAINT)));
        JsonNode body = expect("/healthz", 503, true, Map.of("IPv4", true, "IPv6", true));
        assertThat(body.get("nodeEligible").asBoolean()).isFalse();
        server.syncNode(ProxierHealthTest.node(false, List.of("other")));
        expectHealthy("/healthz", Map.of("IPv4", true, "IPv6", true));
        server.syncNode(ProxierHealthTest.node(true, List.of()));
        expect("/healthz", 503, true, Map.of("IPv4", true, "IPv6", true));

        assertThat(metrics.healthz).isEqualTo(expectedCounts);
        assertThat(metrics.livez).isEmpty();
    }

    @Test
    void livezFollowsProxierHealthAndIgnoresTheNode() throws IOException {
        startServer();
        server.syncNode(ProxierHealthTest.node(false, List.of()));

        runProxyHealthSequence("/livez");

        server.syncNode(ProxierHealthTest.node(false, List.of(ProxierHealth.TO_BE_DELETED_TAINT)));
        expectHealthy("/livez", Map.of("IPv4", true, "IPv6", true));
        server.syncNode(ProxierHealthTest.node(true, List.of()));
        expectHealthy("/livez", Map.of("IPv4", true, "IPv6", true));
        server.syncNode(null);
        expectHealthy("/livez", Map.of("IPv4", true, "IPv6", true));

        assertThat(metrics.livez).isEqualTo(expectedCounts);
        assertThat(metrics.healthz).isEmpty();
    }

    @Test
    void healthzIsUnavailableUntilTheNodeIsKnownWhileLivezIsAlreadyUp() throws IOException {
        startServer();

        JsonNode healthz = expect("/healthz", 503, true, Map.of());
        assertThat(healthz.get("nodeEligible").asBoolean()).isFalse();
        assertThat(healthz.get("lastUpdated").asText()).isEqualTo("0001-01-01T00:00:00Z");
        expect("/livez", 200, true, Map.of());
    }

    @Test
    void answersWithUpstreamsExactBodyAndHeaders() {
        startServer();
        server.syncNode(ProxierHealthTest.node(false, List.of()));
        server.updated(IpFamily.IPV4);
        clock.step(Duration.ofMillis(1500));

        HttpResponse<String> response = HttpProbe.get(port(), "/healthz?verbose=1");

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo("{\"lastUpdated\":\"2024-05-01T10:00:01.5Z\","
                + "\"currentTime\":\"2024-05-01T10:00:01.5Z\",\"nodeEligible\":true,\"healthy\":true,"
                + "\"status\":{\"IPv4\":{\"lastUpdated\":\"2024-05-01T10:00:00Z\",\"healthy\":true}}}");
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(response.headers().firstValue("Content-Length"))
                .hasValue(Integer.toString(response.body().length()));
        assertThat(response.headers().firstValue("Date")).isPresent();
    }

    @Test
    void answersHeadWithHeadersOnlyAndAnyOtherMethodLikeGet() {
        startServer();
        server.syncNode(ProxierHealthTest.node(false, List.of()));

        HttpResponse<String> head = HttpProbe.send("HEAD", port(), "/healthz");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(Integer.parseInt(head.headers().firstValue("Content-Length").orElseThrow())).isPositive();

        HttpResponse<String> post = HttpProbe.send("POST", port(), "/livez");
        assertThat(post.statusCode()).isEqualTo(200);
        assertThat(post.body()).startsWith("{\"lastUpdated\":");
        assertThat(metrics.healthz).containsExactly(Map.entry(200, 1));
        assertThat(metrics.livez).containsExactly(Map.entry(200, 1));
    }

    @Test
    void answersGosDefault404ForEveryOtherPath() {
        startServer();

        for (String path : List.of("/", "/healthz/", "/healthzx", "/livez/x", "/metrics")) {
            HttpResponse<String> response = HttpProbe.get(port(), path);
            assertThat(response.statusCode()).as(path).isEqualTo(404);
            assertThat(response.body()).isEqualTo("404 page not found\n");
            assertThat(response.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
            assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        }
        assertThat(metrics.healthz).isEmpty();
    }

    @Test
    void failsHardOnABindFailureWhenAskedToAndTellsTheNode() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            server = newServer(new BindAddress("127.0.0.1", taken.getLocalPort()), true);

            assertThatThrownBy(server::start).isInstanceOf(BindFailedException.class)
                    .hasMessageStartingWith("failed to start proxy healthz on 127.0.0.1:" + taken.getLocalPort() + ": ")
                    .hasMessageNotContaining("\n");
            assertThat(events.events()).singleElement().satisfies(event -> {
                assertThat(event.kind()).isEqualTo("Node");
                assertThat(event.name()).isEqualTo("node-a");
                assertThat(event.type()).isEqualTo("Warning");
                assertThat(event.reason()).isEqualTo("FailedToStartProxierHealthcheck");
            });
        }
    }

    @Test
    void retriesABindFailureUntilThePortIsFree() throws Exception {
        int port;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = taken.getLocalPort();
            server = newServer(new BindAddress("127.0.0.1", port), false);
            server.start();
            assertThat(server.boundAddress()).isEmpty();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (server.boundAddress().isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertThat(server.boundAddress()).isPresent();
        assertThat(HttpProbe.get(port, "/livez").statusCode()).isEqualTo(200);
        assertThat(events.events()).isNotEmpty()
                .allSatisfy(event -> assertThat(event.reason()).isEqualTo("FailedToStartProxierHealthcheck"));
    }

    @Test
    void anEmptyBindAddressDisablesTheListenerAndCountsAsHealthyForServiceChecks() {
        server = ProxyHealthServer.create("", Duration.ofSeconds(30), true, "node-a", metrics, EventRecorder.NOOP);
        server.start();

        assertThat(server.boundAddress()).isEmpty();
        assertThat(server.health().healthTimeout()).isEqualTo(Duration.ofSeconds(60));
        assertThat(server.isProxyHealthy()).isTrue();
    }

    @Test
    void rejectsAnInvalidBindAddressNamingTheFlag() {
        assertThatThrownBy(() -> ProxyHealthServer.create("localhost:10256", Duration.ofSeconds(30), false, "n",
                metrics, EventRecorder.NOOP))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("healthzBindAddress: must be a valid IP, got \"localhost:10256\"");
    }

    /**
     * Upstream's testProxyHealthUpdater with a 10 s timeout and both families (kube-proxy-common.md §1.6); the node
     * is eligible throughout.
     */
    private void runProxyHealthSequence(String path) throws IOException {
        // Healthy before any update: no per-family status yet.
        expectHealthy(path, Map.of());

        server.updated(IpFamily.IPV4);
        server.updated(IpFamily.IPV6);
        expectHealthy(path, Map.of("IPv4", true, "IPv6", true));

        clock.step(Duration.ofSeconds(25));
        expectHealthy(path, Map.of("IPv4", true, "IPv6", true));

        for (List<IpFamily> late : List.of(List.of(IpFamily.IPV4), List.of(IpFamily.IPV6),
                List.of(IpFamily.IPV4, IpFamily.IPV6))) {
            Instant lastUpdate = clock.instant();
            server.updated(IpFamily.IPV4);
            server.updated(IpFamily.IPV6);
            late.forEach(server::queued);
            clock.step(Duration.ofSeconds(25));
            JsonNode body = expect(path, 503, false, Map.of(
                    "IPv4", !late.contains(IpFamily.IPV4), "IPv6", !late.contains(IpFamily.IPV6)));
            assertThat(body.get("lastUpdated").asText()).isEqualTo(HealthJson.goTime(lastUpdate, ZoneOffset.UTC));

            server.updated(IpFamily.IPV4);
            server.updated(IpFamily.IPV6);
            clock.step(Duration.ofSeconds(5));
            expectHealthy(path, Map.of("IPv4", true, "IPv6", true));
        }

        // Updating one family does not repair the other.
        server.queued(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(25));
        server.updated(IpFamily.IPV4);
        expect(path, 503, false, Map.of("IPv4", true, "IPv6", false));
        server.updated(IpFamily.IPV6);
        expectHealthy(path, Map.of("IPv4", true, "IPv6", true));

        // Both late: unhealthy until both are updated.
        server.queued(IpFamily.IPV4);
        server.queued(IpFamily.IPV6);
        clock.step(Duration.ofSeconds(25));
        expect(path, 503, false, Map.of("IPv4", false, "IPv6", false));
        server.updated(IpFamily.IPV4);
        expect(path, 503, false, Map.of("IPv4", true, "IPv6", false));
        server.updated(IpFamily.IPV6);
        expectHealthy(path, Map.of("IPv4", true, "IPv6", true));
    }

    private void expectHealthy(String path, Map<String, Boolean> families) throws IOException {
        JsonNode body = expect(path, 200, true, families);
        // A 200 reports the current time as lastUpdated for old clients.
        assertThat(body.get("lastUpdated").asText()).isEqualTo(body.get("currentTime").asText());
    }

    private JsonNode expect(String path, int status, boolean healthy, Map<String, Boolean> families)
            throws IOException {
        HttpResponse<String> response = HttpProbe.get(port(), path);
        expectedCounts.merge(status, 1, Integer::sum);
        assertThat(response.statusCode()).as(path + " " + response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        JsonNode body = JSON.readTree(response.body());
        assertThat(body.get("currentTime").asText()).isEqualTo(HealthJson.goTime(clock.instant(), ZoneOffset.UTC));
        assertThat(body.get("healthy").asBoolean()).isEqualTo(healthy);
        assertThat(body.has("nodeEligible")).isEqualTo(path.equals("/healthz"));
        Map<String, Boolean> statuses = new HashMap<>();
        if (body.has("status")) {
            body.get("status").fields().forEachRemaining(e -> statuses.put(e.getKey(), e.getValue().get("healthy")
                    .asBoolean()));
        }
        assertThat(statuses).isEqualTo(families);
        return body;
    }

    private void startServer() {
        server = newServer(new BindAddress("127.0.0.1", 0), false);
        server.start();
    }

    private ProxyHealthServer newServer(BindAddress address, boolean hardFail) {
        return new ProxyHealthServer(address, new ProxierHealth(Duration.ofSeconds(10), clock), hardFail, "node-a",
                metrics, events, Duration.ofMillis(50));
    }

    private int port() {
        return server.boundAddress().orElseThrow().getPort();
    }
}
