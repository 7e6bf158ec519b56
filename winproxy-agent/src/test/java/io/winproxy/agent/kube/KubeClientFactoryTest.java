package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.ExponentialBackoffIntervalCalculator;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeClientFactoryTest {
    private final KubeClientFactory factory = new KubeClientFactory("winproxy-test");

    @TempDir
    Path dir;

    @Test
    void aMasterUrlAloneConfiguresTheClientWithTheJdkHttpClient() {
        try (KubernetesClient client = factory.create(KubeClientSettings.forMaster("http://127.0.0.1:6443"))) {
            assertThat(client.getConfiguration().getMasterUrl()).startsWith("http://127.0.0.1:6443");
            assertThat(client.getConfiguration().getUserAgent()).isEqualTo("winproxy-test");
            assertThat(client.getConfiguration().getRequestTimeout()).isEqualTo(30_000);
            assertThat(client.getConfiguration().getWatchReconnectLimit()).isEqualTo(-1);
            assertThat(client.getConfiguration().getRequestRetryBackoffLimit())
                    .as("failures reach the informers at once, which retry and log them").isZero();
            assertThat(client.getHttpClient().getClass().getName()).contains("jdkhttp");
        }
    }

    @Test
    void theReconnectBackoffIsCappedAtThirtySecondsAndItsBaseIsDrawnAtRandom() {
        KubeClientFactory lowest = new KubeClientFactory("t", name -> null, List::of, bound -> 0);
        KubeClientFactory highest = new KubeClientFactory("t", name -> null, List::of, bound -> bound - 1);

        for (KubeClientFactory f : List.of(lowest, highest, factory)) {
            try (KubernetesClient client = f.create(KubeClientSettings.forMaster("http://127.0.0.1:6443"))) {
                // fabric8's own calculator, as its informers and watch managers build it from this configuration
                var backoff = new ExponentialBackoffIntervalCalculator(
                        client.getConfiguration().getWatchReconnectInterval(), -1);
                List<Long> waits = IntStream.range(0, 12).mapToObj(i -> backoff.nextReconnectInterval()).toList();
                assertThat(waits).allSatisfy(w -> assertThat(w).isLessThanOrEqualTo(30_000));
                assertThat(waits.get(11)).as("the cap is reached").isGreaterThanOrEqualTo(19_200);
            }
        }
        assertThat(lowest.watchReconnectInterval()).isEqualTo(Duration.ofMillis(600));
        assertThat(highest.watchReconnectInterval()).isEqualTo(Duration.ofMillis(937));
        assertThat(IntStream.range(0, 50).mapToObj(i -> factory.watchReconnectInterval()).distinct().count())
                .as("jitter: nodes do not share one schedule").isGreaterThan(5);
    }

    @Test
    void aKubeconfigIsReadAndMasterOverridesItsServer() throws IOException {
        Path kubeconfig = Files.writeString(dir.resolve("kubeconfig"), """
                apiVersion: v1
                kind: Config
                clusters:
                  - name: c
                    cluster: {server: "https://10.0.0.1:6443", insecure-skip-tls-verify: true}
                users:
                  - name: u
                    user: {token: "s3cr3t-token"}
                contexts:
                  - name: ctx
                    context: {cluster: c, user: u, namespace: kube-system}
                current-context: ctx
                """);

        try (KubernetesClient fromFile = factory.create(new KubeClientSettings(kubeconfig.toString(), null,
                "application/vnd.kubernetes.protobuf", "", 5, 10));
             KubernetesClient overridden = factory.create(new KubeClientSettings(kubeconfig.toString(),
                     "https://10.0.0.2:6443", null, null, 5, 10))) {
            assertThat(fromFile.getConfiguration().getMasterUrl()).startsWith("https://10.0.0.1:6443");
            assertThat(fromFile.getConfiguration().getAutoOAuthToken()).isEqualTo("s3cr3t-token");
            assertThat(overridden.getConfiguration().getMasterUrl()).startsWith("https://10.0.0.2:6443");
        }
    }

    @Test
    void anUnreadableKubeconfigIsAOneLineErrorNamingTheFlag() {
        assertThatThrownBy(() -> factory.create(new KubeClientSettings(dir.resolve("missing").toString(), null,
                null, null, 5, 10)))
                .isInstanceOf(KubeClientException.class)
                .hasMessageStartingWith("--kubeconfig:").hasMessageContaining("missing")
                .hasMessageNotContaining("\n");
    }

    @Test
    void anInvalidKubeconfigIsAOneLineErrorNamingTheFlag() throws IOException {
        Path kubeconfig = Files.writeString(dir.resolve("bad"), "clusters: [ {");

        assertThatThrownBy(() -> factory.create(new KubeClientSettings(kubeconfig.toString(), null, null, null,
                5, 10)))
                .isInstanceOf(KubeClientException.class)
                .hasMessageStartingWith("--kubeconfig:").hasMessageNotContaining("\n");
    }

    @Test
    void credentialsInAMasterUrlAreNotPartOfWhatIsLogged() {
        assertThat(KubeClientFactory.redact("https://admin:hunter2@10.0.0.1:6443/api?token=abc"))
                .isEqualTo("https://10.0.0.1:6443/api");
    }

    @Test
    void withNeitherFlagOutsideAClusterTheErrorNamesBothFlags() {
        KubeClientFactory outside = new KubeClientFactory("t", name -> null, () -> List.of("/nonexistent/config"));

        assertThatThrownBy(() -> outside.create(KubeClientSettings.defaults()))
                .isInstanceOf(KubeClientException.class)
                .hasMessageStartingWith("--kubeconfig/--master:").hasMessageNotContaining("\n");
    }

    @Test
    void withNeitherFlagTheDefaultKubeconfigIsUsed() throws IOException {
        Path kubeconfig = Files.writeString(dir.resolve("config"), """
                apiVersion: v1
                kind: Config
                clusters: [{name: c, cluster: {server: "https://10.0.0.9:6443"}}]
                users: [{name: u, user: {}}]
                contexts: [{name: x, context: {cluster: c, user: u}}]
                current-context: x
                """);
        String previous = System.getProperty("kubeconfig");
        System.setProperty("kubeconfig", kubeconfig.toString());
        try (KubernetesClient client = new KubeClientFactory("t", name -> null, () -> List.of(kubeconfig.toString()))
                .create(KubeClientSettings.defaults())) {
            assertThat(client.getConfiguration().getMasterUrl()).startsWith("https://10.0.0.9:6443");
        } finally {
            if (previous == null) {
                System.clearProperty("kubeconfig");
            } else {
                System.setProperty("kubeconfig", previous);
            }
        }
    }
}
