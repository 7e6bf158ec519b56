package io.winproxy.agent.cli;

import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * Test manifests: {@code src/test/resources/sync-cluster} (nodes win-a (this) and win-b, web and kube-dns) and
 * {@code src/test/resources/shapes-cluster} (dual-stack win-a and win-b, one Service per shape, and bad input).
 */
final class SyncCluster {
    private SyncCluster() {
    }

    static Path dir() {
        return resourceDir("sync-cluster");
    }

    static Path shapes() {
        return resourceDir("shapes-cluster");
    }

    private static Path resourceDir(String name) {
        try {
            return Path.of(SyncCluster.class.getClassLoader().getResource(name + "/nodes.yaml").toURI())
                    .getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
