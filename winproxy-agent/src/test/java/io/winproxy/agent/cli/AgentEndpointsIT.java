package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running agent serves what a probe, a cloud load balancer and Prometheus ask Linux kube-proxy for: /healthz and
 * /livez on the health address, /metrics, /proxyMode and /configz on the metrics address, and a health-check port per
 * {@code externalTrafficPolicy: Local} LoadBalancer service.
 */
class AgentEndpointsIT {
    @TempDir
    Path stateDir;

    private AgentHarness harness;
    private int healthPort;
    private int metricsPort;
    private int serviceHealthPort;

    @BeforeEach
    void start() throws Exception {
        harness = new AgentHarness(stateDir);
        healthPort = HttpProbe.freePort();
        metricsPort = HttpProbe.freePort();
        serviceHealthPort = HttpProbe.freePort();
        harness.api().resource(new ServiceBuilder().withNewMetadata().withNamespace("shop").withName("front")
                .endMetadata().withNewSpec().withType("LoadBalancer").withClusterIP("10.96.0.70")
                .withClusterIPs("10.96.0.70").withIpFamilies("IPv4").withExternalTrafficPolicy("Local")
                .withHealthCheckNodePort(serviceHealthPort).addNewPort().withName("http").withProtocol("TCP")
                .withPort(80).withNodePort(30070).withNewTargetPort(8080).endPort().endSpec().withNewStatus()
                .withNewLoadBalancer().addNewIngress().withIp("203.0.113.7").endIngress().endLoadBalancer()
                .endStatus().build()).create();
        harness.api().resource(AgentHarness.slice("shop", "front-1", "front", 8080,
                "10.244.1.5@win-a", "10.244.2.6@win-b")).create();
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=" + AgentHarness.NETWORK, "--source-vip=" + AgentHarness.SOURCE_VIP,
                "--master=" + harness.server.url(), "--healthz-bind-address=127.0.0.1:" + healthPort,
                "--metrics-bind-address=127.0.0.1:" + metricsPort, "--iptables-min-sync-period=100ms",
                "--iptables-sync-period=2s"), Map.of());
        // harness.close() stops it.
        harness.agent = ProxyAgent.start(new ProxyAgent.Setup(config,
                NodeFacts.of(config, AgentHarness.NETWORK), harness.hns, HostMacLookup.emulated(), stateDir, null,
                List.of("127.0.0.1"), harness.reports::add,
                handler -> new DemoCni(harness.host, handler)));
        Eventually.await(AgentHarness.TIMEOUT, "first sync", harness::syncedSuccessfully);
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    @Test
    void healthzAndLivezAnswerAsKubeProxyAndHealthzFollowsTheNodesEligibility() {
        Eventually.await(AgentHarness.TIMEOUT, "/healthz 200 once the Node is known",
                () -> HttpProbe.get(healthPort, "/healthz").statusCode() == 200);
        HttpResponse<String> healthz = HttpProbe.get(healthPort, "/healthz");
        assertThat(healthz.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(healthz.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
        assertThat(healthz.body()).startsWith("{\"lastUpdated\":\"").contains("\"nodeEligible\":true")
                .contains("\"healthy\":true").contains("\"status\":{\"IPv4\":{\"lastUpdated\":");
        HttpResponse<String> livez = HttpProbe.get(healthPort, "/livez");
        assertThat(livez.statusCode()).isEqualTo(200);
        assertThat(livez.body()).doesNotContain("nodeEligible");
        assertThat(HttpProbe.get(healthPort, "/metrics").statusCode()).isEqualTo(404);

        Node node = harness.api().nodes().withName("win-a").get();
        node.getSpec().setTaints(List.of(new TaintBuilder().withKey("ToBeDeletedByClusterAutoscaler")
                .withValue("1700000000").withEffect("NoSchedule").build()));
        harness.api().nodes().resource(node).update();

        Eventually.await(AgentHarness.TIMEOUT, "/healthz 503 on a node the autoscaler removes",
                () -> HttpProbe.get(healthPort, "/healthz").statusCode() == 503);
        assertThat(HttpProbe.get(healthPort, "/healthz").body()).contains("\"nodeEligible\":false")
                .contains("\"healthy\":true");
        assertThat(HttpProbe.get(healthPort, "/livez").statusCode()).isEqualTo(200);
    }

    @Test
    void theMetricsServerServesKubeProxysMetricsProxyModeAndConfigz() {
        HttpProbe.get(healthPort, "/livez");

        HttpResponse<String> metrics = HttpProbe.get(metricsPort, "/metrics");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"}")
                .contains("kubeproxy_sync_proxy_rules_duration_seconds_bucket{ip_family=\"IPv4\",le=\"0.001\"}")
                .contains("kubeproxy_proxy_livez_total{code=\"200\"}")
                .contains("kubeproxy_sync_proxy_rules_service_changes_total")
                .contains("winproxy_hns_calls_total{code=\"0x00000000\",operation=\"HcnCreateLoadBalancer\"}")
                // The emulated HNS reports its native calls as the binding does: the agent wires them to /metrics.
                .contains("winproxy_hns_native_calls_total{call=\"HcnEnumerateEndpoints\"}")
                .contains("winproxy_hns_native_calls_total{call=\"HcnCreateLoadBalancer\"}");
        HttpResponse<String> mode = HttpProbe.get(metricsPort, "/proxyMode");
        assertThat(mode.body()).isEqualTo("kernelspace");
        assertThat(mode.headers().firstValue("Content-Type")).hasValue("text/plain; charset=utf-8");
        HttpResponse<String> configz = HttpProbe.get(metricsPort, "/configz");
        assertThat(configz.statusCode()).isEqualTo(200);
        assertThat(configz.body()).startsWith("{\"kubeproxy.config.k8s.io\":{")
                .contains("\"healthzBindAddress\":\"127.0.0.1:" + healthPort + "\"")
                .contains("\"kind\":\"KubeProxyConfiguration\"");
        assertThat(HttpProbe.get(metricsPort, "/healthz").body()).isEqualTo("ok");
    }

    @Test
    void aLocalTrafficLoadBalancerServiceGetsAHealthCheckPortThatCountsLocalReadyEndpoints() {
        Eventually.await(AgentHarness.TIMEOUT, "the service health port answers 200",
                () -> probeQuietly(serviceHealthPort) == 200);
        HttpResponse<String> check = HttpProbe.get(serviceHealthPort, "/any/path");
        assertThat(check.headers().firstValue("X-Load-Balancing-Endpoint-Weight")).hasValue("1");
        assertThat(check.body()).isEqualTo("{\n\t\"service\": {\n\t\t\"namespace\": \"shop\",\n\t\t\"name\": \"front\"\n"
                + "\t},\n\t\"localEndpoints\": 1,\n\t\"serviceProxyHealthy\": true\n}");

        harness.api().resource(AgentHarness.slice("shop", "front-1", "front", 8080, "10.244.2.6@win-b")).update();
        Eventually.await(AgentHarness.TIMEOUT, "503 without a local endpoint",
                () -> probeQuietly(serviceHealthPort) == 503);

        harness.api().services().inNamespace("shop").withName("front").delete();
        Eventually.await(AgentHarness.TIMEOUT, "the listener closes with its service",
                () -> probeQuietly(serviceHealthPort) == -1);
    }

    /** The status code, or -1 when nothing listens. */
    private static int probeQuietly(int port) {
        try {
            return HttpProbe.get(port, "/").statusCode();
        } catch (IllegalStateException e) {
            return -1;
        }
    }
}
