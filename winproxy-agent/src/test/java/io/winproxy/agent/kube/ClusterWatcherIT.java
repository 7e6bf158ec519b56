package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ClusterWatcherIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final String WATCHER_AGENT = "winproxy-it-watcher";

    private final FaultInjectingDispatcher dispatcher = new FaultInjectingDispatcher();
    private final RecordingHandler handler = new RecordingHandler();
    private EmbeddedApiServer server;
    private KubernetesClient watcherClient;
    private ClusterWatcher watcher;

    @BeforeEach
    void startServer() {
        server = EmbeddedApiServer.start(0, dispatcher);
        watcherClient = new KubeClientFactory(WATCHER_AGENT).create(KubeClientSettings.forMaster(server.url()));
    }

    @AfterEach
    void stop() {
        if (watcher != null) {
            watcher.close();
        }
        watcherClient.close();
        server.close();
    }

    private KubernetesClient api() {
        return server.client();
    }

    private void startWatcher(WatchOptions options) {
        watcher = new ClusterWatcher(watcherClient, options, handler);
        watcher.start();
    }

    /** Stops the API server and, after {@code down}, starts it again on the same port with the same objects. */
    private void restartServer(Duration down) throws InterruptedException {
        int port = server.port();
        server.close();
        Thread.sleep(down.toMillis());
        server = EmbeddedApiServer.start(port, dispatcher);
    }

    /**
     * Creates Service default/{@code name} and waits up to 60 s for the watcher to deliver it ({@code what}); no
     * deletion may have been delivered.
     */
    private void createAndAwaitWithoutDeletions(String name, String clusterIp, String what) {
        api().resource(service("default", name, clusterIp, Map.of())).create();
        Eventually.await(Duration.ofSeconds(60), what, () -> handler.has(c -> c.name().equals("default/" + name)));
        assertThat(handler.calls()).noneMatch(RecordingHandler.Call::isDelete);
    }

    /** Creates Service default/web (10.96.0.20) and its slice web-1 with one endpoint, 10.244.1.10. */
    private void createWeb() {
        api().resource(service("default", "web", "10.96.0.20", Map.of())).create();
        api().resource(slice("default", "web-1", "web", "10.244.1.10", Map.of())).create();
    }

    private void startWatcherAndAwaitSync() throws InterruptedException {
        startWatcher(WatchOptions.forNode("win-node-1"));
        assertThat(watcher.awaitSynced(TIMEOUT)).isTrue();
    }

    private static Service service(String namespace, String name, String clusterIp, Map<String, String> labels) {
        return new ServiceBuilder().withNewMetadata().withNamespace(namespace).withName(name).withLabels(labels)
                .endMetadata().withNewSpec().withClusterIP(clusterIp).addNewPort().withName("http").withPort(80)
                .endPort().endSpec().build();
    }

    private static EndpointSlice slice(String namespace, String name, String service, String ip,
                                       Map<String, String> extraLabels) {
        Map<String, String> labels = new HashMap<>(extraLabels);
        labels.put("kubernetes.io/service-name", service);
        return new EndpointSliceBuilder().withNewMetadata().withNamespace(namespace).withName(name)
                .withLabels(labels).endMetadata().withAddressType("IPv4")
                .addNewPort().withName("http").withPort(8080).endPort()
                .addNewEndpoint().withAddresses(ip).withNodeName("win-node-1").endEndpoint().build();
    }

    private static Node node(String name, String zone) {
        return new NodeBuilder().withNewMetadata().withName(name)
                .withLabels(Map.of("topology.kubernetes.io/zone", zone)).endMetadata()
                .withNewSpec().withPodCIDR("10.244.1.0/24").endSpec().build();
    }

    @Test
    void theInitialListIsDeliveredBeforeTheSyncedCallbacks() throws InterruptedException {
        for (int i = 0; i < 20; i++) {
            api().resource(service("ns" + (i % 3), "svc" + i, "10.96.0." + (i + 1), Map.of())).create();
            api().resource(slice("ns" + (i % 3), "svc" + i + "-x", "svc" + i, "10.244.1." + (i + 1), Map.of()))
                    .create();
        }
        api().resource(node("win-node-1", "zone-a")).create();

        startWatcherAndAwaitSync();

        Eventually.await(TIMEOUT, "node synced", () -> handler.has(c -> c.what().equals("nodeSynced")));
        int servicesSynced = handler.indexOf(c -> c.what().equals("servicesSynced"));
        int slicesSynced = handler.indexOf(c -> c.what().equals("slicesSynced"));
        int nodeSynced = handler.indexOf(c -> c.what().equals("nodeSynced"));
        var calls = handler.calls();
        assertThat(calls.subList(0, servicesSynced).stream().filter(c -> c.what().equals("service")).count())
                .isEqualTo(20);
        assertThat(calls.subList(0, slicesSynced).stream().filter(c -> c.what().equals("slice")).count())
                .isEqualTo(20);
        assertThat(calls.subList(0, nodeSynced)).anySatisfy(c -> assertThat(c.name()).isEqualTo("win-node-1"));
        assertThat(calls).filteredOn(c -> c.what().endsWith("Synced")).hasSize(3);
        assertThat(calls).noneMatch(RecordingHandler.Call::isDelete);
    }

    @Test
    void anEmptyClusterStillReportsBothListsAsSynced() throws InterruptedException {
        startWatcherAndAwaitSync();

        assertThat(handler.calls()).extracting(RecordingHandler.Call::what)
                .contains("servicesSynced", "slicesSynced");
    }

    @Test
    void addUpdateAndDeleteOfEachKindReachTheHandlerAsPlainValues() throws InterruptedException {
        startWatcherAndAwaitSync();

        createWeb();
        api().resource(node("win-node-1", "zone-a")).create();
        Eventually.await(TIMEOUT, "three adds", () -> handler.calls().stream()
                .filter(RecordingHandler.Call::isAdd).count() == 3);

        api().services().inNamespace("default").withName("web")
                .edit(s -> new ServiceBuilder(s).editSpec().withSessionAffinity("ClientIP").endSpec().build());
        api().discovery().v1().endpointSlices().inNamespace("default").withName("web-1")
                .edit(s -> new EndpointSliceBuilder(s).editFirstEndpoint().withNewConditions(false, true, true)
                        .endEndpoint().build());
        api().nodes().withName("win-node-1")
                .edit(n -> new NodeBuilder(n).editMetadata().addToLabels("topology.kubernetes.io/zone", "zone-b")
                        .endMetadata().build());
        Eventually.await(TIMEOUT, "three updates", () -> handler.calls().stream()
                .filter(c -> c.previous() != null && c.current() != null).count() == 3);

        api().services().inNamespace("default").withName("web").delete();
        api().discovery().v1().endpointSlices().inNamespace("default").withName("web-1").delete();
        api().nodes().withName("win-node-1").delete();
        Eventually.await(TIMEOUT, "three deletes", () -> handler.calls().stream()
                .filter(RecordingHandler.Call::isDelete).count() == 3);

        var calls = handler.calls();
        ServiceInfo updated = (ServiceInfo) calls.stream()
                .filter(c -> c.what().equals("service") && c.previous() != null && c.current() != null)
                .findFirst().orElseThrow().current();
        assertThat(updated.sessionAffinity()).isEqualTo("ClientIP");
        EndpointSliceInfo slice = (EndpointSliceInfo) calls.stream()
                .filter(c -> c.what().equals("slice") && c.previous() != null && c.current() != null)
                .findFirst().orElseThrow().current();
        assertThat(slice.serviceName()).isEqualTo("web");
        assertThat(slice.endpoints().get(0).terminating()).isTrue();
        NodeInfo node = (NodeInfo) calls.stream()
                .filter(c -> c.what().equals("node") && c.previous() != null && c.current() != null)
                .findFirst().orElseThrow().current();
        assertThat(node.zone()).isEqualTo("zone-b");
        assertThat(calls).filteredOn(RecordingHandler.Call::isDelete).extracting(RecordingHandler.Call::name)
                .containsExactlyInAnyOrder("default/web", "default/web-1", "win-node-1");
    }

    @Test
    void labelAndFieldSelectorsFilterWhatIsDelivered() throws InterruptedException {
        api().resource(service("default", "other-proxy", "10.96.0.30",
                Map.of("service.kubernetes.io/service-proxy-name", "someone-else"))).create();
        api().resource(slice("default", "db-1", "db", "10.244.1.40",
                Map.of("service.kubernetes.io/headless", ""))).create();
        api().resource(node("win-node-2", "zone-b")).create();
        api().resource(service("default", "mine", "10.96.0.31", Map.of())).create();

        startWatcherAndAwaitSync();
        api().resource(slice("default", "mine-1", "mine", "10.244.1.41", Map.of())).create();
        Eventually.await(TIMEOUT, "the unfiltered slice", () -> handler.has(c -> c.name().equals("default/mine-1")));

        assertThat(handler.calls()).filteredOn(c -> !c.what().endsWith("Synced"))
                .extracting(RecordingHandler.Call::name)
                .containsExactlyInAnyOrder("default/mine", "default/mine-1");
    }

    @Test
    void aServiceProxyNameSelectsOnlyObjectsLabelledWithIt() throws InterruptedException {
        api().resource(service("default", "theirs", "10.96.0.30",
                Map.of("service.kubernetes.io/service-proxy-name", "someone-else"))).create();
        api().resource(service("default", "ours", "10.96.0.31",
                Map.of("service.kubernetes.io/service-proxy-name", "winproxy"))).create();
        api().resource(service("default", "unlabelled", "10.96.0.32", Map.of())).create();

        startWatcher(new WatchOptions("win-node-1", "winproxy", Duration.ofMinutes(15)));
        assertThat(watcher.awaitSynced(TIMEOUT)).isTrue();

        assertThat(handler.calls()).filteredOn(c -> c.what().equals("service"))
                .extracting(RecordingHandler.Call::name).containsExactly("default/ours");
    }

    @Test
    void anApiServerThatAnswers503AtStartIsRetriedUntilItRecovers() throws InterruptedException {
        api().resource(service("default", "web", "10.96.0.20", Map.of())).create();
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(WATCHER_AGENT), 503);

        startWatcher(WatchOptions.forNode("win-node-1"));
        Eventually.await(TIMEOUT, "several 503 answers", () -> dispatcher.faultsServed() >= 3);
        assertThat(watcher.isSynced()).isFalse();
        assertThat(handler.calls()).isEmpty();

        dispatcher.heal();
        assertThat(watcher.awaitSynced(Duration.ofSeconds(60))).isTrue();
        assertThat(handler.calls()).anySatisfy(c -> assertThat(c.name()).isEqualTo("default/web"));
    }

    @Test
    void anApiServerRestartIsSurvivedWithoutSpuriousDeletes() throws InterruptedException {
        createWeb();
        startWatcherAndAwaitSync();

        restartServer(Duration.ofSeconds(3));
        createAndAwaitWithoutDeletions("after-restart", "10.96.0.21", "the service created after the restart");
    }

    @Test
    void mixedVersionErrorsDuringAReconnectNeverDeliverDeletions() throws InterruptedException {
        createWeb();
        startWatcherAndAwaitSync();

        // The peer that serves EndpointSlices is gone (404 for an API it cannot route), Services are overloaded.
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(WATCHER_AGENT)
                .and(r -> r.getPath().contains("endpointslices")), 404);
        restartServer(Duration.ZERO);
        Eventually.await(Duration.ofSeconds(30), "404 answers to the reconnecting watcher",
                () -> dispatcher.faultsServed() >= 2);
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(WATCHER_AGENT), 503);
        Eventually.await(Duration.ofSeconds(30), "503 answers", () -> dispatcher.faultsServed() >= 4);
        assertThat(handler.calls()).noneMatch(RecordingHandler.Call::isDelete);

        dispatcher.heal();
        createAndAwaitWithoutDeletions("healed", "10.96.0.22", "the service created after healing");
    }

    @Test
    void anEndpointSliceApiAnswering404IsNotMistakenForAnEmptyList() throws InterruptedException {
        createWeb();
        dispatcher.fail(FaultInjectingDispatcher.fromUserAgent(WATCHER_AGENT)
                .and(r -> r.getPath().contains("endpointslices")), 404);

        startWatcher(WatchOptions.forNode("win-node-1"));
        Eventually.await(TIMEOUT, "services synced", () -> handler.has(c -> c.what().equals("servicesSynced")));
        Eventually.await(TIMEOUT, "several 404 answers", () -> dispatcher.faultsServed() >= 3);
        assertThat(handler.calls()).noneMatch(c -> c.what().equals("slicesSynced"));
        assertThat(watcher.isSynced()).isFalse();

        dispatcher.heal();
        assertThat(watcher.awaitSynced(Duration.ofSeconds(60))).isTrue();
        assertThat(handler.calls()).anySatisfy(c -> assertThat(c.name()).isEqualTo("default/web-1"));
    }
}
