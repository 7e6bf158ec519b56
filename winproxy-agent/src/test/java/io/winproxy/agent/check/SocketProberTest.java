package io.winproxy.agent.check;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The measured probes of {@code --probe-traffic}, against listeners of the test on loopback. */
class SocketProberTest {
    private final SocketProber prober = new SocketProber(Duration.ofSeconds(2));

    @Test
    void aListeningFrontendConnectsAndAClosedOneFailsWithTheReason() throws Exception {
        int port;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = server.getLocalPort();
            Reachability.Outcome ok = prober.connect(null, "127.0.0.1", port);
            assertThat(ok.ok()).isTrue();
            assertThat(ok.detail()).startsWith("connected in ");
        }
        Reachability.Outcome refused = prober.connect(null, "127.0.0.1", port);
        assertThat(refused.ok()).isFalse();
        assertThat(refused.detail()).startsWith("ConnectException");
    }

    @Test
    void aHealthCheckAnsweringServiceUnavailableIsAnAnswerThatSaysNoLocalEndpoint() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            exchange.sendResponseHeaders(503, -1);
            exchange.close();
        });
        server.start();
        try {
            Reachability.Outcome o = prober.healthCheck("127.0.0.1", server.getAddress().getPort());
            assertThat(o).isEqualTo(new Reachability.Outcome(true, "HTTP 503 (no local endpoint)"));
        } finally {
            server.stop(0);
        }
    }
}
