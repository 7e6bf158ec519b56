package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.winproxy.agent.demo.EmbeddedApiServer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class KubeClientFactoryIT {

    private static Duration timeTenLists(KubeClientSettings settings) {
        try (KubernetesClient client = new KubeClientFactory().create(settings)) {
            client.services().inAnyNamespace().list();
            long start = System.nanoTime();
            for (int i = 0; i < 10; i++) {
                client.services().inAnyNamespace().list();
            }
            return Duration.ofNanos(System.nanoTime() - start);
        }
    }

    @Test
    void requestsBeyondTheBurstArePacedAtQps() {
        try (EmbeddedApiServer server = EmbeddedApiServer.start(0)) {
            // burst 1 is spent by the warm-up request; ten more at 10 per second need about a second
            Duration limited = timeTenLists(new KubeClientSettings(null, server.url(), null, null, 10f, 1));
            Duration unlimited = timeTenLists(new KubeClientSettings(null, server.url(), null, null, 0f, 0));

            assertThat(limited).isGreaterThanOrEqualTo(Duration.ofMillis(900));
            assertThat(unlimited).isLessThan(limited);
        }
    }
}
