package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WatchOptionsTest {

    @Test
    void withoutAServiceProxyNameOnlyUnlabelledNonHeadlessObjectsAreSelected() {
        assertThat(WatchOptions.forNode("win-node-1").labelSelector())
                .isEqualTo("!service.kubernetes.io/service-proxy-name,!service.kubernetes.io/headless");
    }

    @Test
    void aServiceProxyNameSelectsObjectsLabelledWithIt() {
        assertThat(new WatchOptions("n", " winproxy ", Duration.ofMinutes(15)).labelSelector())
                .isEqualTo("service.kubernetes.io/service-proxy-name=winproxy,!service.kubernetes.io/headless");
    }

    @Test
    void aBlankNodeNameIsRejected() {
        assertThatThrownBy(() -> WatchOptions.forNode(" ")).hasMessageContaining("nodeName");
    }
}
