package io.winproxy.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.kube.Eventually;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ManifestSyncIT {
    @TempDir
    Path dir;

    private EmbeddedApiServer server;
    private ManifestSync sync;

    @BeforeEach
    void start() {
        server = EmbeddedApiServer.start(0);
        sync = new ManifestSync(server.client(), dir);
    }

    @AfterEach
    void stop() {
        sync.close();
        server.close();
    }

    private KubernetesClient api() {
        return server.client();
    }

    private Service service(String namespace, String name) {
        return api().services().inNamespace(namespace).withName(name).get();
    }

    private static String svc(String name, String clusterIp) {
        return """
                apiVersion: v1
                kind: Service
                metadata:
                  name: %s
                  namespace: apps
                spec:
                  clusterIP: %s
                  ports:
                    - name: http
                      port: 80
                """.formatted(name, clusterIp);
    }

    @Test
    void theExampleClusterLoadsCompletelyAndASecondSyncChangesNothing() {
        ExampleCluster.extractTo(dir);

        ManifestSync.Result first = sync.syncOnce();
        ManifestSync.Result second = sync.syncOnce();

        assertThat(first.created()).isEqualTo(13);
        assertThat(first.problems()).isEmpty();
        assertThat(second.changedAnything()).isFalse();
        assertThat(api().nodes().list().getItems()).hasSize(3);
        assertThat(api().services().inAnyNamespace().list().getItems()).hasSize(5);
        assertThat(api().discovery().v1().endpointSlices().inAnyNamespace().list().getItems()).hasSize(5);
        Service lb = service("shop", "storefront");
        assertThat(lb.getStatus().getLoadBalancer().getIngress()).extracting(i -> i.getIp())
                .containsExactly("203.0.113.10");
    }

    @Test
    void editedFilesUpdateAndRemovedFilesDeleteTheirObjects() throws IOException {
        Files.writeString(dir.resolve("a.yaml"), svc("a", "10.96.0.1"));
        Files.writeString(dir.resolve("b.yaml"), svc("b", "10.96.0.2"));
        sync.syncOnce();

        Files.writeString(dir.resolve("a.yaml"), svc("a", "10.96.0.11"));
        Files.delete(dir.resolve("b.yaml"));
        ManifestSync.Result result = sync.syncOnce();

        assertThat(result.updated()).isEqualTo(1);
        assertThat(result.deleted()).isEqualTo(1);
        assertThat(service("apps", "a").getSpec().getClusterIP()).isEqualTo("10.96.0.11");
        assertThat(service("apps", "b")).isNull();
    }

    @Test
    void aBrokenFileHoldsBackDeletionsButNotOtherChanges() throws IOException {
        Files.writeString(dir.resolve("a.yaml"), svc("a", "10.96.0.1"));
        Files.writeString(dir.resolve("b.yaml"), svc("b", "10.96.0.2"));
        sync.syncOnce();

        Files.writeString(dir.resolve("b.yaml"), "apiVersion: v1\nkind: Service\nmetadata: {name: b\n");
        Files.writeString(dir.resolve("c.yaml"), svc("c", "10.96.0.3"));
        ManifestSync.Result result = sync.syncOnce();

        assertThat(result.deletionsHeld()).isTrue();
        assertThat(result.deleted()).isZero();
        assertThat(result.created()).isEqualTo(1);
        assertThat(result.problems()).singleElement().asString().contains("b.yaml");
        assertThat(service("apps", "b")).isNotNull();
        assertThat(service("apps", "c")).isNotNull();
    }

    @Test
    void theFollowerAppliesFilesAddedChangedAndRemovedWhileRunning() throws IOException {
        sync.syncOnce();
        sync.follow(Duration.ofMillis(200));

        Files.writeString(dir.resolve("a.yaml"), svc("a", "10.96.0.1"));
        Eventually.await(Duration.ofSeconds(10), "service a created", () -> service("apps", "a") != null);

        Files.writeString(dir.resolve("a.yaml"), svc("a", "10.96.0.9"));
        Eventually.await(Duration.ofSeconds(10), "service a updated",
                () -> "10.96.0.9".equals(service("apps", "a").getSpec().getClusterIP()));

        Files.delete(dir.resolve("a.yaml"));
        Eventually.await(Duration.ofSeconds(10), "service a deleted", () -> service("apps", "a") == null);
    }

    @Test
    void objectsCreatedBehindTheDirectorysBackAreRemoved() {
        ExampleCluster.extractTo(dir);
        sync.syncOnce();
        api().services().inNamespace("default").withName("web").delete();
        api().resource(new ServiceBuilder().withNewMetadata().withName("stray")
                .withNamespace("default").endMetadata().build()).create();

        ManifestSync.Result result = sync.syncOnce();

        assertThat(result.created()).isEqualTo(1);
        assertThat(result.deleted()).isEqualTo(1);
        assertThat(service("default", "web")).isNotNull();
        assertThat(service("default", "stray")).isNull();
    }

    @Test
    void aMissingDirectoryIsAOneLineError() {
        ManifestSync missing = new ManifestSync(api(), dir.resolve("absent"));

        assertThatThrownBy(missing::syncOnce).isInstanceOf(DemoException.class).hasMessageContaining("absent");
    }

    @Test
    void aChangedLoadBalancerIngressInTheFileReachesTheServicesStatus() throws IOException {
        ExampleCluster.extractTo(dir);
        sync.syncOnce();
        Path file = dir.resolve("shop-loadbalancer.yaml");

        Files.writeString(file, Files.readString(file).replace("203.0.113.10", "203.0.113.99"));
        ManifestSync.Result result = sync.syncOnce();

        assertThat(result.updated()).isEqualTo(1);
        assertThat(service("shop", "storefront").getStatus().getLoadBalancer().getIngress())
                .extracting(i -> i.getIp()).containsExactly("203.0.113.99");
        assertThat(sync.syncOnce().changedAnything()).isFalse();
    }

    @Test
    void aSecondServerOnATakenPortIsAOneLineError() {
        assertThatThrownBy(() -> EmbeddedApiServer.start(server.port()))
                .isInstanceOf(DemoException.class)
                .hasMessageContaining("127.0.0.1:" + server.port())
                .hasMessageNotContaining("\n");
    }
}
