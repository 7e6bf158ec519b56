package io.winproxy.agent.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.logging.Level;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's Kubernetes API: fabric8's mock server in CRUD mode (objects are stored, listed, watched, patched and
 * deleted; label and name field selectors work), plain HTTP, bound to 127.0.0.1 only. There is no discovery
 * document, so kubectl does not work against it; the demo edits it through {@link ManifestSync}.
 *
 * <p>{@link #client()} is a client built like the agent's own ({@link KubeClientFactory}, JDK HTTP client).
 */
public final class EmbeddedApiServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(EmbeddedApiServer.class);
    /**
     * The mock server logs every request at INFO through java.util.logging, which would bury the demo's output.
     * Held in a field because JUL keeps only weak references to loggers (a collected logger forgets its level).
     */
    private static final java.util.logging.Logger MOCK_SERVER_LOG =
            java.util.logging.Logger.getLogger("io.fabric8.mockwebserver.MockWebServer");

    private final KubernetesMockServer server;
    private final KubernetesClient client;
    private final String url;

    private EmbeddedApiServer(KubernetesMockServer server, KubernetesClient client, String url) {
        this.server = server;
        this.client = client;
        this.url = url;
    }

    /** Starts an empty API server on 127.0.0.1; {@code port} 0 picks a free port. */
    public static EmbeddedApiServer start(int port) {
        return start(port, new KubernetesCrudDispatcher());
    }

    /**
     * Starts an API server on 127.0.0.1 with the given dispatcher. Passing the dispatcher of a stopped server
     * restarts it with the same objects (tests use this to simulate an API server restart, and wrap the dispatcher
     * to inject failures).
     *
     * @throws DemoException when the port cannot be bound
     */
    public static EmbeddedApiServer start(int port, Dispatcher dispatcher) {
        if (port < 0 || port > 65535) {
            throw new DemoException("API server port must be 0..65535: " + port);
        }
        MOCK_SERVER_LOG.setLevel(Level.WARNING);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                dispatcher, false);
        try {
            server.init(InetAddress.getLoopbackAddress(), port);
        } catch (RuntimeException e) {
            throw new DemoException("cannot start the embedded API server on 127.0.0.1:" + port + ": "
                    + e.getMessage(), e);
        }
        String url = "http://127.0.0.1:" + server.getPort();
        KubernetesClient client = new KubeClientFactory("winproxy-demo").create(KubeClientSettings.forMaster(url));
        logger.info("Embedded Kubernetes API listening on {}", url);
        return new EmbeddedApiServer(server, client, url);
    }

    /** A client for this server; closed with it. */
    public KubernetesClient client() {
        return client;
    }

    /** "http://127.0.0.1:PORT". */
    public String url() {
        return url;
    }

    public int port() {
        return server.getPort();
    }

    @Override
    public void close() {
        client.close();
        server.destroy();
    }
}
