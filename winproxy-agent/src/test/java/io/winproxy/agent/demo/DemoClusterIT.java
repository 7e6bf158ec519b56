package io.winproxy.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.agent.kube.ClusterEventHandler;
import io.winproxy.agent.kube.ClusterWatcher;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.kube.WatchOptions;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoClusterIT {
    @TempDir
    Path dir;

    /** Keeps the latest value per key, like the sync role's change trackers. */
    private static final class LatestState implements ClusterEventHandler {
        final Map<String, ServiceInfo> services = new ConcurrentHashMap<>();
        final Map<String, EndpointSliceInfo> slices = new ConcurrentHashMap<>();
        volatile NodeInfo node;

        @Override
        public void onService(ServiceInfo previous, ServiceInfo current) {
            keepLatest(services, previous, current, ServiceInfo::key);
        }

        @Override
        public void onEndpointSlice(EndpointSliceInfo previous, EndpointSliceInfo current) {
            keepLatest(slices, previous, current, EndpointSliceInfo::key);
        }

        /** {@code current} under its key, or {@code previous}'s key removed when {@code current} is a deletion. */
        private static <T> void keepLatest(Map<String, T> latest, T previous, T current, Function<T, String> key) {
            if (current == null) {
                latest.remove(key.apply(previous));
            } else {
                latest.put(key.apply(current), current);
            }
        }

        @Override
        public void onNode(NodeInfo previous, NodeInfo current) {
            node = current;
        }

        @Override
        public void onServicesSynced() {
        }

        @Override
        public void onEndpointSlicesSynced() {
        }
    }

    @Test
    void theBundledExampleIsServedAndAWatcherSeesItAsThisNodeWould() throws InterruptedException {
        LatestState state = new LatestState();
        try (DemoCluster cluster = DemoCluster.start(null, 0, false);
             ClusterWatcher watcher = new ClusterWatcher(cluster.client(),
                     WatchOptions.forNode(ExampleCluster.defaultNodeName()), state)) {
            watcher.start();

            assertThat(watcher.awaitSynced(Duration.ofSeconds(20))).isTrue();
            assertThat(cluster.initialLoad().created()).isEqualTo(13);
            assertThat(cluster.apiUrl()).startsWith("http://127.0.0.1:");
            assertThat(state.services).hasSize(5).containsKeys("kube-system/kube-dns", "shop/storefront");
            assertThat(state.slices).hasSize(5);
            Eventually.await(Duration.ofSeconds(10), "this node", () -> state.node != null);
            assertThat(state.node.name()).isEqualTo("win-node-1");
            assertThat(state.node.zone()).isEqualTo("zone-a");
        }
    }

    @Test
    void editsToTheFollowedDirectoryReachAWatcher() throws IOException, InterruptedException {
        ExampleCluster.extractTo(dir);
        LatestState state = new LatestState();
        try (DemoCluster cluster = DemoCluster.start(dir, 0, true);
             ClusterWatcher watcher = new ClusterWatcher(cluster.client(), WatchOptions.forNode("win-node-1"),
                     state)) {
            watcher.start();
            assertThat(watcher.awaitSynced(Duration.ofSeconds(20))).isTrue();

            Files.writeString(dir.resolve("web.yaml"),
                    Files.readString(dir.resolve("web.yaml")).replace("10.96.10.20", "10.96.10.21"));
            Files.delete(dir.resolve("sticky-session.yaml"));

            Eventually.await(Duration.ofSeconds(15), "the new cluster IP", () -> Optional
                    .ofNullable(state.services.get("default/web")).map(s -> s.clusterIps().contains("10.96.10.21"))
                    .orElse(false));
            Eventually.await(Duration.ofSeconds(15), "the removed service",
                    () -> !state.services.containsKey("default/session-api")
                            && !state.slices.containsKey("default/session-api-5tq8n"));
        }
    }

    @Test
    void theApiServerListensOnLoopbackOnly() throws SocketException {
        try (DemoCluster cluster = DemoCluster.start(null, 0, false)) {
            int port = Integer.parseInt(cluster.apiUrl().substring(cluster.apiUrl().lastIndexOf(':') + 1));
            for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                    if (!address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                        assertThat(connects(address, port)).as("reachable on %s", address).isFalse();
                    }
                }
            }
            assertThat(connects(InetAddress.getLoopbackAddress(), port)).isTrue();
        }
    }

    @Test
    void aMissingManifestsDirectoryIsAOneLineErrorNamingTheFlag() {
        assertThatThrownBy(() -> DemoCluster.start(dir.resolve("nope"), 0, false))
                .isInstanceOf(DemoException.class).hasMessageStartingWith("--manifests:");
    }

    private static boolean connects(InetAddress address, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address, port), 1000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
