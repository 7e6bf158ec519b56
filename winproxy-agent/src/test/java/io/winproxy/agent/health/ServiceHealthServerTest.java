package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Ports upstream's TestServer (healthcheck_test.go) over real HTTP on 127.0.0.1. */
class ServiceHealthServerTest {

    private final AtomicBoolean proxyHealthy = new AtomicBoolean(true);
    private final RecordingEvents events = new RecordingEvents();
    private final ServiceHealthServer server =
            new ServiceHealthServer("node-a", List.of("127.0.0.1"), proxyHealthy::get, events);

    @AfterEach
    void closeServer() {
        server.close();
    }

    @Test
    void listenersAndAnswersFollowServicesEndpointsAndProxyHealth() {
        // five distinct ports: a port a step closes must not come back as a later step's new one
        int[] ports = HttpProbe.freePorts(5);
        int p1 = ports[0];
        // Step 1: nothing to serve.
        server.syncServices(null);
        server.syncEndpoints(null);
        assertThat(server.services()).isEmpty();

        // Step 2: endpoints of an unknown service are ignored.
        server.syncEndpoints(Map.of("a/b", 93));
        assertThat(server.services()).isEmpty();

        // Step 3: one service, one listener on the configured IP, no endpoints yet.
        server.syncServices(Map.of("a/b", p1));
        assertThat(server.services()).containsExactly(Map.entry("a/b", p1));
        assertThat(server.listenAddresses()).containsExactly(new InetSocketAddress("127.0.0.1", p1));
        expect(p1, "a", "b", 503, 0, true);

        // Steps 4-6: the count decides.
        server.syncEndpoints(Map.of("a/b", 18));
        expect(p1, "a", "b", 200, 18, true);
        server.syncEndpoints(Map.of("a/b", 0));
        expect(p1, "a", "b", 503, 0, true);
        server.syncEndpoints(Map.of("a/b", 11));
        server.syncEndpoints(null);
        expect(p1, "a", "b", 503, 0, true);

        // Step 7: the service goes, so does its listener.
        server.syncServices(null);
        assertThat(server.services()).isEmpty();
        expectClosed(p1);

        // Step 8: three services, all without endpoints.
        int p2 = ports[1];
        int p3 = ports[2];
        server.syncServices(Map.of("a/b", p1, "c/d", p2, "e/f", p3));
        assertThat(server.listenAddresses()).hasSize(3);
        expect(p1, "a", "b", 503, 0, true);
        expect(p2, "c", "d", 503, 0, true);
        expect(p3, "e", "f", 503, 0, true);

        // Step 9: endpoints everywhere.
        server.syncEndpoints(Map.of("a/b", 9, "c/d", 3, "e/f", 7));
        expect(p1, "a", "b", 200, 9, true);
        expect(p2, "c", "d", 200, 3, true);
        expect(p3, "e", "f", 200, 7, true);

        // Step 10: remove a/b, keep c/d (and its count), move e/f to a new port, add g/h.
        int p4 = ports[3];
        int p5 = ports[4];
        server.syncServices(Map.of("c/d", p2, "e/f", p4, "g/h", p5));
        assertThat(server.services()).containsExactlyEntriesOf(new TreeMap<>(
                Map.of("c/d", p2, "e/f", p4, "g/h", p5)));
        expectClosed(p1);
        expectClosed(p3);
        expect(p2, "c", "d", 200, 3, true);
        expect(p4, "e", "f", 503, 0, true);
        expect(p5, "g", "h", 503, 0, true);

        // Step 11: a service left out of the endpoint map drops to 0.
        server.syncEndpoints(Map.of("e/f", 2, "g/h", 1));
        expect(p2, "c", "d", 503, 0, true);
        expect(p4, "e", "f", 200, 2, true);
        expect(p5, "g", "h", 200, 1, true);

        // Step 12: an unhealthy proxier fails every service.
        proxyHealthy.set(false);
        expect(p2, "c", "d", 503, 0, false);
        expect(p4, "e", "f", 503, 2, false);
        expect(p5, "g", "h", 503, 1, false);

        // Step 13: healthy again.
        proxyHealthy.set(true);
        expect(p2, "c", "d", 503, 0, true);
        expect(p4, "e", "f", 200, 2, true);
        expect(p5, "g", "h", 200, 1, true);
        assertThat(events.events()).isEmpty();
    }

    @Test
    void answersAnyPathAndMethodAndHeadWithHeadersOnly() {
        int port = HttpProbe.freePort();
        server.syncServices(Map.of("ns/svc", port));
        server.syncEndpoints(Map.of("ns/svc", 2));

        assertThat(HttpProbe.send("POST", port, "/whatever?x=1").statusCode()).isEqualTo(200);
        HttpResponse<String> head = HttpProbe.send("HEAD", port, "/");
        assertThat(head.statusCode()).isEqualTo(200);
        assertThat(head.body()).isEmpty();
        assertThat(head.headers().firstValue("X-Load-Balancing-Endpoint-Weight")).hasValue("2");
        assertThat(head.headers().firstValue("Content-Length"))
                .hasValue(Integer.toString(HealthJson.serviceHealth("ns", "svc", 2, true).length()));
    }

    @Test
    void aPortThatCannotBeBoundIsReportedOnTheServiceAndRetriedOnTheNextSync() throws IOException {
        int port;
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = taken.getLocalPort();
            server.syncServices(Map.of("ns/svc", port));

            assertThat(server.services()).isEmpty();
            assertThat(events.events()).singleElement().satisfies(event -> {
                assertThat(event.kind()).isEqualTo("Service");
                assertThat(event.namespace()).isEqualTo("ns");
                assertThat(event.name()).isEqualTo("svc");
                assertThat(event.type()).isEqualTo("Warning");
                assertThat(event.reason()).isEqualTo("FailedToStartServiceHealthcheck");
                assertThat(event.message()).startsWith(
                        "node node-a failed to start healthcheck \"ns/svc\" on port " + port + ": ");
            });
        }

        server.syncServices(Map.of("ns/svc", port));
        server.syncEndpoints(Map.of("ns/svc", 1));

        assertThat(server.services()).containsExactly(Map.entry("ns/svc", port));
        expect(port, "ns", "svc", 200, 1, true);
    }

    @Test
    void aFailureOnOneAddressClosesTheOthersOfThatService() throws IOException {
        try (ServiceHealthServer twoAddresses = new ServiceHealthServer("node-a", List.of("127.0.0.1", "127.0.0.2"),
                proxyHealthy::get, events);
             ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.2"))) {
            int port = taken.getLocalPort();

            twoAddresses.syncServices(Map.of("ns/svc", port));

            assertThat(twoAddresses.services()).isEmpty();
            assertThat(events.events()).hasSize(1);
            expectClosed(port);
        }
    }

    @Test
    void listensOnTheWildcardAddressWhenNoIpIsConfigured() {
        try (ServiceHealthServer wildcard = new ServiceHealthServer("node-a", List.of(), proxyHealthy::get, events)) {
            int port = HttpProbe.freePort();
            wildcard.syncServices(Map.of("ns/svc", port));
            wildcard.syncEndpoints(Map.of("ns/svc", 4));

            assertThat(wildcard.listenAddresses()).singleElement()
                    .satisfies(address -> assertThat(address.getAddress().isAnyLocalAddress()).isTrue());
            expect(port, "ns", "svc", 200, 4, true);
        }
    }

    @Test
    void rejectsABindIpThatIsNotAnIpLiteral() {
        assertThatThrownBy(() -> new ServiceHealthServer("node-a", List.of("node.example"), () -> true, events))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("service health check bind IP: must be a valid IP, got \"node.example\"");
    }

    private static void expect(int port, String namespace, String name, int status, int endpoints,
                               boolean proxyHealthy) {
        HttpResponse<String> response = HttpProbe.get(port, "/");
        assertThat(response.statusCode()).as(namespace + "/" + name).isEqualTo(status);
        assertThat(response.body()).isEqualTo(HealthJson.serviceHealth(namespace, name, endpoints, proxyHealthy));
        Map<String, String> headers = new HashMap<>();
        response.headers().map().forEach((key, values) -> headers.put(key.toLowerCase(), values.get(0)));
        assertThat(headers).containsEntry("content-type", "application/json")
                .containsEntry("x-content-type-options", "nosniff")
                .containsEntry("x-load-balancing-endpoint-weight", Integer.toString(endpoints));
    }

    private static void expectClosed(int port) {
        assertThatThrownBy(() -> HttpProbe.get(port, "/")).hasCauseInstanceOf(ConnectException.class);
    }
}
