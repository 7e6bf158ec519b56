package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeAddressBuilder;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.health.HttpProbe;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The running agent on an l2bridge network of an HNS that supports IPv6 dual-stack: its Node gains an IPv6
 * InternalIP after start-up, and /healthz and /metrics then report the IPv6 family next to IPv4.
 */
class DualStackAgentIT {
    private static final String NETWORK = "cbr0";

    @TempDir
    Path stateDir;

    private final HnsEmulator hns = HnsEmulator.inMemory();
    private final List<SyncReport> reports = new CopyOnWriteArrayList<>();
    private AgentHarness harness;
    private int healthPort;
    private int metricsPort;

    @BeforeEach
    void start() throws Exception {
        harness = new AgentHarness(stateDir);
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, NETWORK, "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        healthPort = HttpProbe.freePort();
        metricsPort = HttpProbe.freePort();
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=" + NETWORK, "--master=" + harness.server.url(),
                "--healthz-bind-address=127.0.0.1:" + healthPort, "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--iptables-min-sync-period=100ms", "--iptables-sync-period=2s"), Map.of());
        // harness.close() stops it.
        harness.agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, NETWORK), hns,
                HostMacLookup.emulated(), stateDir.resolve("agent"), null, List.of("127.0.0.1"), reports::add,
                null));
        Eventually.await(AgentHarness.TIMEOUT, "first sync",
                () -> reports.stream().anyMatch(r -> r.result().complete()));
    }

    @AfterEach
    void stop() {
        harness.close();
    }

    @Test
    void anIpv6InternalIpMakesHealthAndMetricsReportBothFamilies() {
        assertThat(HttpProbe.get(healthPort, "/healthz").body()).as("an IPv4-only node")
                .contains("\"status\":{\"IPv4\":").doesNotContain("IPv6");

        Node node = harness.api().nodes().withName("win-a").get();
        List<NodeAddress> addresses = new ArrayList<>(node.getStatus().getAddresses());
        addresses.add(new NodeAddressBuilder().withType("InternalIP").withAddress("fd00:192:168:1::11").build());
        node.getStatus().setAddresses(addresses);
        harness.api().nodes().resource(node).updateStatus();

        Eventually.await(AgentHarness.TIMEOUT, "the IPv6 family in /healthz",
                () -> HttpProbe.get(healthPort, "/healthz").body().contains("\"IPv6\":{\"lastUpdated\":"));
        assertThat(HttpProbe.get(healthPort, "/healthz").statusCode()).isEqualTo(200);
        assertThat(HttpProbe.get(healthPort, "/livez").body()).contains("\"status\":{\"IPv4\":")
                .contains("\"IPv6\":{\"lastUpdated\":");
        assertThat(HttpProbe.get(metricsPort, "/metrics").body())
                .contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv4\"}")
                .contains("kubeproxy_sync_proxy_rules_last_timestamp_seconds{ip_family=\"IPv6\"}")
                .contains("kubeproxy_sync_proxy_rules_last_queued_timestamp_seconds{ip_family=\"IPv6\"}");
    }
}
