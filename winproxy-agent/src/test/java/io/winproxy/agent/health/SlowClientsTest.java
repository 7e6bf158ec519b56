package io.winproxy.agent.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.metrics.MetricsServer;
import io.winproxy.agent.metrics.PrometheusAgentMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 17.1: no number of idle or slow clients delays a probe of {@code /healthz}, {@code /livez} or
 * {@code /metrics} by more than a second; slow clients are cut off.
 */
class SlowClientsTest {

    /** A handler that answers every request 200 "ok". */
    private static final HttpHandler OK = request -> HttpResponses.of(200, HttpResponses.TEXT, "ok", Map.of());

    private final HeldConnections clients = new HeldConnections();
    private final List<AutoCloseable> servers = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        clients.close();
        for (AutoCloseable server : servers) {
            server.close();
        }
    }

    @Test
    void healthzAndLivezAnswerWithinASecondWhileFiftyIdleAndFiftyHalfSentClientsAreConnected() throws IOException {
        ProxyHealthServer server = new ProxyHealthServer(new BindAddress("127.0.0.1", 0),
                new ProxierHealth(Duration.ofSeconds(10), new FakeClock(Instant.now(), ZoneOffset.UTC)), false,
                "node-a", new CountingMetrics(), new RecordingEvents(), Duration.ofMillis(50));
        servers.add(server);
        server.start();
        int port = server.boundAddress().orElseThrow().getPort();

        clients.hold(port, 50, 50);

        for (String path : List.of("/healthz", "/livez", "/healthz", "/nothing")) {
            assertThat(getWithinASecond(port, path).statusCode()).isIn(200, 503, 404);
        }
    }

    @Test
    void metricsAnswerWithinASecondWhileFiftyIdleAndFiftyHalfSentClientsAreConnected() throws IOException {
        MetricsServer server = new MetricsServer(new BindAddress("127.0.0.1", 0), false, "node-a",
                new PrometheusAgentMetrics(), new RecordingEvents(), Duration.ofMillis(50));
        servers.add(server);
        server.start();
        int port = server.boundAddress().orElseThrow().getPort();

        clients.hold(port, 50, 50);

        for (String path : List.of("/metrics", "/healthz", "/metrics")) {
            assertThat(getWithinASecond(port, path).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void aHalfSentRequestIsClosedOnceItsHeadIsOverdue() throws IOException {
        int port = listen(pool(new ServerLimits(8, Duration.ofMillis(300), Duration.ofSeconds(5), 1024)), OK);
        Socket slow = connect(port);
        slow.getOutputStream().write("GET /healthz HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        slow.setSoTimeout(5_000);

        long start = System.nanoTime();
        assertThat(slow.getInputStream().read()).isEqualTo(-1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aClientTricklingOneByteAtATimeIsClosedAtTheHeadDeadline() throws Exception {
        int port = listen(pool(new ServerLimits(8, Duration.ofMillis(400), Duration.ofSeconds(5), 1024)), OK);
        Socket slow = connect(port);
        long start = System.nanoTime();
        try {
            for (int i = 0; i < 40; i++) {
                slow.getOutputStream().write('X');
                Thread.sleep(50);
            }
        } catch (IOException expected) {
            // the server closed the connection
        }
        slow.setSoTimeout(5_000);
        assertThat(readAll(slow.getInputStream())).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofMillis(1900));
    }

    @Test
    void aNewConnectionBeyondTheCapEvictsTheLongestIdleOne() throws IOException {
        ConnectionPool pool = pool(new ServerLimits(2, Duration.ofSeconds(30), Duration.ofSeconds(5), 1024));
        int port = listen(pool, OK);
        Socket first = connect(port);
        awaitOpen(pool, 1);
        connect(port);
        awaitOpen(pool, 2);

        assertThat(get(port, "/x")).startsWith("HTTP/1.1 200 OK");
        first.setSoTimeout(5_000);
        assertThat(first.getInputStream().read()).isEqualTo(-1);
        assertThat(pool.evictedConnections()).isEqualTo(1);
    }

    @Test
    void aNewConnectionBeyondTheCapIsClosedAtOnceWhenEveryConnectionIsBeingAnswered() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch entered = new CountDownLatch(1);
        ConnectionPool pool = pool(new ServerLimits(1, Duration.ofSeconds(30), Duration.ofSeconds(5), 1024));
        int port = listen(pool, request -> {
            entered.countDown();
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return HttpResponses.of(200, HttpResponses.TEXT, "ok", Map.of());
        });
        Socket busy = connect(port);
        busy.getOutputStream().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(entered.await(5, TimeUnit.SECONDS)).as("the handler runs").isTrue();

        Socket extra = connect(port);
        extra.setSoTimeout(2_000);
        assertThat(extra.getInputStream().read()).isEqualTo(-1);
        assertThat(pool.refusedConnections()).isEqualTo(1);
        release.countDown();
        busy.setSoTimeout(5_000);
        assertThat(new String(busy.getInputStream().readNBytes(15), StandardCharsets.US_ASCII))
                .isEqualTo("HTTP/1.1 200 OK");
    }

    @Test
    void keepAliveConnectionsCarrySeveralRequestsAndHeadSendsNoBody() throws IOException {
        ConnectionPool pool = pool(ServerLimits.DEFAULT);
        int port = listen(pool, request -> HttpResponses.of(200, HttpResponses.TEXT, request.path(), Map.of()));
        try (Socket socket = connect(port)) {
            socket.setSoTimeout(5_000);
            socket.getOutputStream().write(("GET /a%20b?q=1 HTTP/1.1\r\nHost: x\r\n\r\n"
                    + "HEAD /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String both = readAll(socket.getInputStream());
            assertThat(both).contains("Content-Length: 4\r\n").endsWith("Connection: close\r\n\r\n");
            assertThat(both.split("HTTP/1.1 200 OK", -1)).hasSize(3);
            assertThat(both).contains("\r\n\r\n/a bHTTP/1.1 200 OK");
        }
    }

    /** GET {@code path}, which must be answered within a second. */
    private static HttpResponse<String> getWithinASecond(int port, String path) {
        long start = System.nanoTime();
        HttpResponse<String> response = HttpProbe.get(port, path);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as(path).isLessThan(Duration.ofSeconds(1));
        return response;
    }

    private ConnectionPool pool(ServerLimits limits) {
        ConnectionPool pool = new ConnectionPool("test", limits);
        servers.add(pool);
        return pool;
    }

    private int listen(ConnectionPool pool, HttpHandler handler) throws IOException {
        HttpListener listener = HttpListener.open(new InetSocketAddress("127.0.0.1", 0), "test", handler, pool);
        servers.add(listener);
        return listener.address().getPort();
    }

    private Socket connect(int port) throws IOException {
        return clients.connect(port);
    }

    private String get(int port, String path) throws IOException {
        Socket socket = connect(port);
        socket.setSoTimeout(5_000);
        socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
        return readAll(socket.getInputStream());
    }

    private static String readAll(InputStream in) throws IOException {
        try {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (java.net.SocketException reset) {
            return "";
        }
    }

    private static void awaitOpen(ConnectionPool pool, int count) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (pool.openConnections() < count && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(pool.openConnections()).isEqualTo(count);
    }
}
