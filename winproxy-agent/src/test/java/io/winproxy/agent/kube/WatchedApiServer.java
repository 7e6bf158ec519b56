package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.demo.EmbeddedApiServer;
import java.time.Duration;
import java.util.List;

/**
 * A {@link ClusterWatcher} for node win-node-1, synced, on fabric8's CRUD mock server that it reaches through a
 * {@link LoopbackTcpProxy} (stop it or cut its connections for an outage) and whose answers to the watcher's user
 * agent a {@link FaultInjectingDispatcher} can turn into errors. Deliveries go to {@link #handler}.
 */
final class WatchedApiServer implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    final FaultInjectingDispatcher dispatcher = new FaultInjectingDispatcher();
    final RecordingHandler handler = new RecordingHandler();
    final EmbeddedApiServer server;
    final LoopbackTcpProxy proxy;
    private final KubernetesClient client;
    private final ClusterWatcher watcher;

    /** Starts the server with {@code services} in it, then the watcher (user agent {@code agent}); waits for sync. */
    WatchedApiServer(String agent, List<Service> services) throws Exception {
        server = EmbeddedApiServer.start(0, dispatcher);
        proxy = new LoopbackTcpProxy(server.port()).start();
        services.forEach(s -> server.client().resource(s).create());
        ApiTraffic traffic = new ApiTraffic();
        client = new KubeClientFactory(agent).create(KubeClientSettings.forMaster(proxy.url()), traffic);
        watcher = new ClusterWatcher(client, WatchOptions.forNode("win-node-1"), handler, traffic);
        watcher.start();
        assertThat(watcher.awaitSynced(TIMEOUT)).isTrue();
        Eventually.await(TIMEOUT, "node synced", () -> handler.has(c -> c.what().equals("nodeSynced")));
    }

    /** A ClusterIP Service default/{@code name} with one port, http 80. */
    static Service service(String name, String clusterIp) {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withNewSpec().withClusterIP(clusterIp).addNewPort().withName("http").withPort(80).endPort()
                .endSpec().build();
    }

    @Override
    public void close() throws Exception {
        watcher.close();
        client.close();
        proxy.close();
        server.close();
    }
}
