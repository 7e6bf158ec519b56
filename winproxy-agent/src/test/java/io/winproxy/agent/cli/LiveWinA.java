package io.winproxy.agent.cli;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.winproxy.agent.demo.DemoKubeconfig;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Path;
import java.util.List;

/**
 * What the live-cluster tests of {@code plan}, {@code trace} and {@code check} start from: an embedded API server
 * (fabric8's CRUD mock) holding Node win-a (InternalIP 192.168.1.11), a kubeconfig for it, and win-a's emulated
 * l2bridge host (network cbr0, pod CIDR 10.244.1.0/24) kept in {@code hns.json}.
 *
 * @param server     the API server; closed by {@link #close()}
 * @param kubeconfig {@code DIR/kubeconfig}
 * @param hnsState   {@code DIR/hns.json}, the emulated host's state file
 * @param host       the emulated host, for local endpoints and the like
 */
public record LiveWinA(EmbeddedApiServer server, Path kubeconfig, Path hnsState, EmulatedHost host)
        implements AutoCloseable {

    /** Starts it with its files in {@code dir}. */
    public static LiveWinA start(Path dir) throws Exception {
        EmbeddedApiServer server = EmbeddedApiServer.start(0);
        Path kubeconfig = DemoKubeconfig.write(dir.resolve("kubeconfig"), server.url());
        Path hnsState = dir.resolve("hns.json");
        EmulatedHost host = new EmulatedHost(HnsEmulator.builder().stateFile(hnsState).build(),
                EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        server.client().nodes().resource(new NodeBuilder().withNewMetadata().withName("win-a").endMetadata()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress("192.168.1.11").endAddress()
                .endStatus().build()).create();
        return new LiveWinA(server, kubeconfig, hnsState, host);
    }

    @Override
    public void close() {
        server.close();
    }
}
