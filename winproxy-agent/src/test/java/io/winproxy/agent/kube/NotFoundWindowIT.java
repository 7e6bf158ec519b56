package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.demo.EmbeddedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A control plane answering 404 to every list and watch (a mixed-version upgrade, issue 17 item 8): the watches are
 * cut, the relists fail, and nothing is delivered as deleted on their word. A Service really deleted during the
 * window is delivered as deleted only once the API server answers again.
 */
class NotFoundWindowIT {
    private static final String AGENT = "winproxy-404-it";
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final FaultInjectingDispatcher dispatcher = new FaultInjectingDispatcher();
    private final RecordingHandler handler = new RecordingHandler();
    private EmbeddedApiServer server;
    private LoopbackTcpProxy proxy;
    private KubernetesClient client;
    private ClusterWatcher watcher;

    @BeforeEach
    void start() throws Exception {
        server = EmbeddedApiServer.start(0, dispatcher);
        proxy = new LoopbackTcpProxy(server.port()).start();
        server.client().resource(service("kept", "10.96.0.10")).create();
        server.client().resource(service("deleted", "10.96.0.11")).create();
        ApiTraffic traffic = new ApiTraffic();
        client = new KubeClientFactory(AGENT).create(KubeClientSettings.forMaster(proxy.url()), traffic);
        watcher = new ClusterWatcher(client, WatchOptions.forNode("win-node-1"), handler, traffic);
        watcher.start();
        assertThat(watcher.awaitSynced(TIMEOUT)).isTrue();
        Eventually.await(TIMEOUT, "node synced", () -> handler.has(c -> c.what().equals("nodeSynced")));
    }

    @AfterEach
    void stop() throws Exception {
        watcher.close();
        client.close();
        proxy.close();
        server.close();
    }

    @Test
    void relistsAnswered404DeliverNoDeletionAndARealDeletionArrivesAfterRecovery() throws Exception {
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(AGENT), 404);
        proxy.dropConnections();
        Eventually.await(TIMEOUT, "404 answers", () -> dispatcher.faultsServed() >= 3);
        server.client().services().inNamespace("default").withName("deleted").delete();
        Thread.sleep(6000);
        assertThat(handler.calls()).as("deletions during the 404 window").noneMatch(RecordingHandler.Call::isDelete);

        dispatcher.heal();
        Eventually.await(TIMEOUT, "the deletion made during the window",
                () -> handler.has(c -> c.isDelete() && c.name().equals("default/deleted")));
        assertThat(handler.calls()).filteredOn(RecordingHandler.Call::isDelete)
                .extracting(RecordingHandler.Call::name).containsExactly("default/deleted");
    }

    private static io.fabric8.kubernetes.api.model.Service service(String name, String clusterIp) {
        return new ServiceBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata()
                .withNewSpec().withClusterIP(clusterIp).addNewPort().withName("http").withPort(80).endPort()
                .endSpec().build();
    }
}
