package io.winproxy.demo;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.logging.Level;

/**
 * The demo's Kubernetes API: fabric8's mock server in CRUD mode (objects are stored, listed, watched, patched and
 * deleted; label and name field selectors work), plain HTTP, bound to 127.0.0.1 only. There is no discovery
 * document, so kubectl does not work against it.
 *
 * <p>This module holds the mock server and its heavy dependencies (Vert.x, Netty, BouncyCastle) so that the node's
 * distribution can leave them out; the agent reaches it through its own {@code EmbeddedApiServer}.
 */
public final class CrudApiServer implements AutoCloseable {
    /**
     * The mock server logs every request at INFO through java.util.logging, which would bury the demo's output.
     * Held in a field because JUL keeps only weak references to loggers (a collected logger forgets its level).
     */
    private static final java.util.logging.Logger MOCK_SERVER_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    private final KubernetesMockServer server;

    private CrudApiServer(KubernetesMockServer server) {
        this.server = server;
    }

    /** A new, empty store of API objects; pass it to {@link #start(int, Dispatcher)}. */
    public static Dispatcher newStore() {
        return new KubernetesCrudDispatcher();
    }

    /**
     * Starts an API server on 127.0.0.1 with the given dispatcher ({@link #newStore()}, or the dispatcher of a stopped
     * server to restart it with the same objects; tests wrap it to inject failures); {@code port} 0 picks a free port.
     *
     * @throws IllegalArgumentException when the port is out of range
     * @throws IllegalStateException    when the port cannot be bound
     */
    public static CrudApiServer start(int port, Dispatcher dispatcher) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("API server port must be 0..65535: " + port);
        }
        MOCK_SERVER_LOG.setLevel(Level.WARNING);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                dispatcher, false);
        try {
            server.init(InetAddress.getLoopbackAddress(), port);
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot start the embedded API server on 127.0.0.1:" + port + ": "
                    + e.getMessage(), e);
        }
        return new CrudApiServer(server);
    }

    /** "http://127.0.0.1:PORT". */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        server.destroy();
    }
}
