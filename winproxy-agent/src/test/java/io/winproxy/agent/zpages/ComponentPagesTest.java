package io.winproxy.agent.zpages;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.health.BindAddress;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.health.RecordingEvents;
import io.winproxy.agent.metrics.MetricsServer;
import io.winproxy.agent.metrics.PrometheusAgentMetrics;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The component pages on the metrics server, as kube-proxy v1.33 serves them. */
class ComponentPagesTest {
    private static final Instant STARTED = Instant.parse("2026-11-26T08:00:00Z");
    private static final Clock NOW = Clock.fixed(Instant.parse("2026-11-26T09:02:03Z"), ZoneOffset.UTC);

    private MetricsServer server;

    @AfterEach
    void close() {
        if (server != null) {
            server.close();
        }
    }

    private int start(ComponentPages pages) {
        server = new MetricsServer(new BindAddress("127.0.0.1", 0), false, "node-a", new PrometheusAgentMetrics(),
                new RecordingEvents(), Duration.ofMillis(50));
        server.serve(pages);
        server.start();
        return server.boundAddress().orElseThrow().getPort();
    }

    private static ComponentPages pages(boolean statusz, boolean flagz) {
        return new ComponentPages(statusz, flagz, Map.of("proxy-mode", "kernelspace", "enable-dsr", "true"), STARTED,
                "java17.0.15", "v1.33.0", NOW, new Random(1));
    }

    @Test
    void statuszAndFlagzAre404WithTheirGatesOff() {
        int port = start(pages(false, false));
        assertThat(HttpProbe.get(port, "/statusz").statusCode()).isEqualTo(404);
        assertThat(HttpProbe.get(port, "/flagz").statusCode()).isEqualTo(404);
    }

    @Test
    void statuszHasKubeProxysTextWithTheGateOn() {
        int port = start(pages(true, false));
        HttpResponse<String> r = HttpProbe.get(port, "/statusz");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
        assertThat(r.body()).matches("(?s)\nkube-proxy statusz\nWarning: This endpoint is not meant to be machine "
                + "parseable, has no formatting compatibility guarantees and is for debugging purposes only.\n\n"
                + "Started(:|: |=| ) Thu Nov 26 08:00:00 Z 2026\n"
                + "Up\\1 1 hr 02 min 03 sec\nGo version\\1 java17.0.15\nBinary version\\1 1.33.0\n"
                + "Emulation version\\1 1.33\n\n");
    }

    @Test
    void statuszShowsTheOverlaySourceVipAndWhereItComesFromOnceKnown() {
        ComponentPages pages = pages(true, false);
        int port = start(pages);
        pages.sourceVip("10.244.1.2 (assigned by HNS)");
        assertThat(HttpProbe.get(port, "/statusz").body()).matches("(?s).*\nEmulation version(:|: |=| ) 1.33\n"
                + "Source VIP\\1 10.244.1.2 \\(assigned by HNS\\)\n\n");
    }

    @Test
    void flagzListsTheFlagsSortedWithOneDelimiter() {
        int port = start(pages(false, true));
        HttpResponse<String> r = HttpProbe.get(port, "/flagz");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).matches("(?s)\nkube-proxy flags\nWarning: .*\n\nenable-dsr(:|: |=| )true\n"
                + "proxy-mode\\1kernelspace\n");
        assertThat(HttpProbe.get(port, "/flagz").body()).isEqualTo(r.body());
    }

    @Test
    void aClientThatDoesNotAcceptTextGets406() throws Exception {
        int port = start(pages(true, true));
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + port + "/statusz")).header("Accept", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(406);
        assertThat(r.body()).isEqualTo("media type not acceptable, must be: text/plain\n");
    }

    @Test
    void healthzCountsItsPingCheckOnMetricsSlisAndDeleteResets() throws Exception {
        int port = start(pages(false, false));
        assertThat(HttpProbe.get(port, "/metrics/slis").body()).isEmpty();
        assertThat(HttpProbe.get(port, "/healthz").body()).isEqualTo("ok");
        HttpProbe.get(port, "/healthz");
        assertThat(HttpProbe.get(port, "/metrics/slis").body()).isEqualTo(
                "# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single healthcheck.\n"
                + "# TYPE kubernetes_healthcheck gauge\n"
                + "kubernetes_healthcheck{name=\"ping\",type=\"healthz\"} 1\n"
                + "# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all healthcheck.\n"
                + "# TYPE kubernetes_healthchecks_total counter\n"
                + "kubernetes_healthchecks_total{name=\"ping\",status=\"success\",type=\"healthz\"} 2\n");
        assertThat(HttpProbe.send("DELETE", port, "/metrics/slis").statusCode()).isEqualTo(200);
        assertThat(HttpProbe.get(port, "/metrics/slis").body()).isEmpty();
    }

    @Test
    void theGatesOfTheConfigurationDecideAndFlagzShowsEffectiveValues() throws Exception {
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--feature-gates=ComponentStatusz=true,"
                + "ComponentFlagz=true", "--hostname-override=n1", "--iptables-sync-period=45s"), Map.of());
        int port = start(ComponentPages.of(config, "v1.33.0"));
        assertThat(HttpProbe.get(port, "/statusz").body()).contains("kube-proxy statusz").contains("1.33.0");
        assertThat(HttpProbe.get(port, "/flagz").body()).containsPattern("iptables-sync-period(:|: |=| )45s\n")
                .containsPattern("feature-gates(:|: |=| )ComponentFlagz=true,ComponentStatusz=true\n");
        ProxyConfig off = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=n1"), Map.of());
        server.close();
        port = start(ComponentPages.of(off, "v1.33.0"));
        assertThat(HttpProbe.get(port, "/statusz").statusCode()).isEqualTo(404);
    }

    @Test
    void featureEnabledHasEveryV133GateWithItsStage() throws Exception {
        PrometheusAgentMetrics metrics = new PrometheusAgentMetrics();
        metrics.featureGates(io.winproxy.agent.config.FeatureGates.parse("ComponentStatusz=true,AllBeta=false")
                .statuses());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        metrics.write(out);
        String text = out.toString(StandardCharsets.UTF_8);
        assertThat(text).contains("# HELP kubernetes_feature_enabled [BETA] This metric records the data about the"
                        + " stage and enablement of a k8s feature.")
                .contains("kubernetes_feature_enabled{name=\"ComponentStatusz\",stage=\"ALPHA\"} 1.0")
                .contains("kubernetes_feature_enabled{name=\"ComponentFlagz\",stage=\"ALPHA\"} 0.0")
                .contains("kubernetes_feature_enabled{name=\"WinDSR\",stage=\"BETA\"} 0.0")
                .contains("kubernetes_feature_enabled{name=\"TopologyAwareHints\",stage=\"\"} 1.0")
                .contains("kubernetes_feature_enabled{name=\"LegacySidecarContainers\",stage=\"DEPRECATED\"} 0.0");
    }
}
