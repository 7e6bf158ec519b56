package io.winproxy.agent.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoKubeconfigTest {
    @TempDir
    Path dir;

    @Test
    void theWrittenKubeconfigPointsFabric8AtTheEmbeddedApiServer() throws Exception {
        Path file = DemoKubeconfig.write(dir.resolve("sub/kubeconfig"), "http://127.0.0.1:6443");

        Config config = Config.fromKubeconfig(Files.readString(file));

        assertThat(config.getMasterUrl()).isEqualTo("http://127.0.0.1:6443/");
        assertThat(config.getCurrentContext().getName()).isEqualTo(DemoKubeconfig.NAME);
        assertThat(config.getOauthToken()).isNull();
    }

    @Test
    void anUnwritableKubeconfigPathNamesTheFlagAndTheFile() throws Exception {
        Path blocker = Files.writeString(dir.resolve("file"), "x");

        assertThatThrownBy(() -> DemoKubeconfig.write(blocker.resolve("kubeconfig"), "http://127.0.0.1:1"))
                .isInstanceOf(DemoException.class)
                .hasMessageStartingWith("--write-kubeconfig: cannot write " + blocker.resolve("kubeconfig"));
    }
}
