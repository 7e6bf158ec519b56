package io.winproxy.agent.cli;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The test manifests in {@code src/test/resources/sync-cluster}: nodes win-a (this) and win-b, web and kube-dns. */
final class SyncCluster {
    private SyncCluster() {
    }

    static Path dir() {
        try {
            return Path.of(SyncCluster.class.getClassLoader().getResource("sync-cluster/nodes.yaml").toURI())
                    .getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
