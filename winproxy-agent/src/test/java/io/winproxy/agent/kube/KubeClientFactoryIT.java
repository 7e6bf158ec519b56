package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.winproxy.agent.demo.EmbeddedApiServer;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
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

    @Test
    void everyRequestIsReportedWithItsStatusOrTheFailureWhenNoAnswerCame() throws Exception {
        List<ApiRequest> requests = new CopyOnWriteArrayList<>();
        String apiHost;
        try (EmbeddedApiServer server = EmbeddedApiServer.start(0);
             KubernetesClient client = new KubeClientFactory().create(KubeClientSettings.forMaster(server.url()),
                     requests::add)) {
            apiHost = "127.0.0.1:" + server.port();
            client.services().inAnyNamespace().list();
            client.services().inNamespace("default").withName("missing").get();
            Watch watch = client.services().inAnyNamespace().watch(new Watcher<>() {
                @Override
                public void eventReceived(Action action, Service resource) {
                }

                @Override
                public void onClose(WatcherException cause) {
                }
            });
            watch.close();
        }
        // The listener is told on the HTTP client's thread, possibly just after the caller saw the answer: the list's
        // report may come after the get's (seen in a full build: 404, 200, 101), so their order is not asserted.
        Eventually.await(Duration.ofSeconds(10), "three reports", () -> requests.size() >= 3);
        assertThat(requests).extracting(ApiRequest::method, ApiRequest::code, ApiRequest::watch).contains(
                tuple("GET", "200", false), tuple("GET", "404", false));
        assertThat(requests).filteredOn(ApiRequest::watch).isNotEmpty().allSatisfy(r -> {
            assertThat(r.method()).isEqualTo("GET");
            assertThat(r.status()).isIn(101, 200);
        });
        assertThat(requests).extracting(ApiRequest::host).containsOnly(apiHost);

        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        requests.clear();
        try (KubernetesClient client = new KubeClientFactory().create(
                KubeClientSettings.forMaster("http://127.0.0.1:" + port), requests::add)) {
            assertThatThrownBy(() -> client.services().inAnyNamespace().list()).isInstanceOf(Exception.class);
        }
        Eventually.await(Duration.ofSeconds(10), "the failure's report", () -> !requests.isEmpty());
        assertThat(requests).singleElement().satisfies(r -> {
            assertThat(r.code()).isEqualTo("<error>");
            assertThat(r.failure()).isInstanceOf(ConnectException.class);
            assertThat(r.host()).isEqualTo("127.0.0.1:" + port);
        });
    }
}
