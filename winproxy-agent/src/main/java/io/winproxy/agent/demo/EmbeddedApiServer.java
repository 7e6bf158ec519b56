package io.winproxy.agent.demo;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.demo.CrudApiServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The demo's Kubernetes API (the {@code winproxy-demo} module's {@link CrudApiServer}: fabric8's mock server in
 * CRUD mode on 127.0.0.1) with a client built like the agent's own ({@link KubeClientFactory}, JDK HTTP client). The
 * demo edits it through {@link ManifestSync}.
 *
 * <p>The {@code winproxy-demo} module is an optional dependency: it is in the development build's runnable jar, not
 * in the Windows distribution. Check {@link #available()} before using this class.
 */
public final class EmbeddedApiServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(EmbeddedApiServer.class);
    private static final String SERVER_CLASS = "io.winproxy.demo.CrudApiServer";

    private final CrudApiServer server;
    private final KubernetesClient client;

    private EmbeddedApiServer(CrudApiServer server, KubernetesClient client) {
        this.server = server;
        this.client = client;
    }

    /** Whether the embedded API server (the {@code winproxy-demo} module and the mock server) is on the class path. */
    public static boolean available() {
        try {
            Class.forName(SERVER_CLASS, false, EmbeddedApiServer.class.getClassLoader());
            Class.forName("io.fabric8.kubernetes.client.server.mock.KubernetesMockServer", false,
                    EmbeddedApiServer.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    /** Starts an empty API server on 127.0.0.1; {@code port} 0 picks a free port. */
    public static EmbeddedApiServer start(int port) {
        return start(port, CrudApiServer.newStore());
    }

    /**
     * Starts an API server on 127.0.0.1 with the given dispatcher. Passing the dispatcher of a stopped server
     * restarts it with the same objects (tests use this to simulate an API server restart, and wrap the dispatcher
     * to inject failures).
     *
     * @throws DemoException when the port is invalid or cannot be bound
     */
    public static EmbeddedApiServer start(int port, Dispatcher dispatcher) {
        CrudApiServer server;
        try {
            server = CrudApiServer.start(port, dispatcher);
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw new DemoException(e.getMessage(), e);
        }
        KubernetesClient client = new KubeClientFactory("winproxy-demo").create(KubeClientSettings.forMaster(
                server.url()));
        logger.atInfo().setMessage("Embedded Kubernetes API listening").addKeyValue("url", server.url()).log();
        return new EmbeddedApiServer(server, client);
    }

    /** A client for this server; closed with it. */
    public KubernetesClient client() {
        return client;
    }

    /** "http://127.0.0.1:PORT". */
    public String url() {
        return server.url();
    }

    public int port() {
        return server.port();
    }

    @Override
    public void close() {
        client.close();
        server.close();
    }
}
