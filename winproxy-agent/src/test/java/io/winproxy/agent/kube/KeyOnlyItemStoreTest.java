package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import org.junit.jupiter.api.Test;

class KeyOnlyItemStoreTest {
    private final KeyOnlyItemStore<Service> store = new KeyOnlyItemStore<>(Service::new);

    private static Service service(String name, String version) {
        return new ServiceBuilder().withNewMetadata().withNamespace("ns").withName(name).withResourceVersion(version)
                .addToAnnotations("big", "x".repeat(1000)).endMetadata()
                .withNewSpec().withClusterIP("10.0.0.1").endSpec().build();
    }

    @Test
    void keepsOnlyTheKeyAndResourceVersionAndHandsBackShells() {
        Service full = service("web", "7");
        String key = store.getKey(full);
        assertThat(key).isEqualTo("ns/web");
        assertThat(store.put(key, full)).isNull();

        Service shell = store.get(key);
        assertThat(shell).isNotSameAs(full);
        assertThat(shell.getMetadata().getNamespace()).isEqualTo("ns");
        assertThat(shell.getMetadata().getName()).isEqualTo("web");
        assertThat(shell.getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(shell.getMetadata().getAnnotations()).isNullOrEmpty();
        assertThat(shell.getSpec()).as("no spec is kept").isNull();
        assertThat(store.isFullState()).as("fabric8 must deliver adds from the listed objects").isFalse();
    }

    @Test
    void putAndRemoveReturnThePreviousVersionSoThatFabric8TellsUpdatesFromResyncs() {
        store.put("ns/web", service("web", "7"));
        assertThat(store.put("ns/web", service("web", "8")).getMetadata().getResourceVersion()).isEqualTo("7");
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.keySet()).containsExactly("ns/web");
        assertThat(store.values()).singleElement().satisfies(s -> assertThat(s.getMetadata().getResourceVersion())
                .isEqualTo("8"));
        assertThat(store.remove("ns/web").getMetadata().getResourceVersion()).isEqualTo("8");
        assertThat(store.remove("ns/web")).isNull();
        assertThat(store.get("ns/web")).isNull();
        assertThat(store.size()).isZero();
    }

    @Test
    void aClusterScopedKeyHasNoNamespace() {
        KeyOnlyItemStore<Node> nodes = new KeyOnlyItemStore<>(Node::new);
        Node node = new NodeBuilder().withNewMetadata().withName("node-1").withResourceVersion("3").endMetadata()
                .build();
        nodes.put(nodes.getKey(node), node);
        Node shell = nodes.get("node-1");
        assertThat(shell.getMetadata().getNamespace()).isNull();
        assertThat(shell.getMetadata().getName()).isEqualTo("node-1");
    }
}
