package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
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

    @Test
    void theInMemoryFilterAgreesWithTheSelector() {
        WatchOptions none = WatchOptions.forNode("n");
        WatchOptions named = new WatchOptions("n", "winproxy", Duration.ofMinutes(15));
        Map<String, String> plain = Map.of("app", "web");
        Map<String, String> headless = Map.of("service.kubernetes.io/headless", "");
        Map<String, String> ours = Map.of("service.kubernetes.io/service-proxy-name", "winproxy");
        Map<String, String> theirs = Map.of("service.kubernetes.io/service-proxy-name", "other");

        assertThat(none.selects(plain)).isTrue();
        assertThat(none.selects(null)).isTrue();
        assertThat(none.selects(headless)).isFalse();
        assertThat(none.selects(ours)).isFalse();
        assertThat(named.selects(ours)).isTrue();
        assertThat(named.selects(theirs)).isFalse();
        assertThat(named.selects(plain)).isFalse();
    }
}
