package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * On an overlay network the proxy never programs a load balancer without SNAT: with no {@code --source-vip} and no
 * source-VIP endpoint of the CNI, a sync programs nothing; once the CNI creates its {@code <network>_ep} endpoint,
 * its address becomes the source VIP.
 */
class OverlaySourceVipIT {
    @TempDir
    Path stateDir;

    private final HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
    private final EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "vxlan0", "win-a");
    private EmbeddedApiServer server;
    private ProxyAgent agent;

    @BeforeEach
    void start() throws Exception {
        server = EmbeddedApiServer.start(0);
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        server.client().nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
        server.client().resource(AgentHarness.service("default", "web", "10.96.0.80", 80, 8080)).create();
        server.client().resource(AgentHarness.slice("default", "web-1", "web", 8080, "10.244.1.5@win-a")).create();
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=vxlan0", "--feature-gates=WinOverlay=true", "--master=" + server.url(),
                "--healthz-bind-address=", "--metrics-bind-address=", "--iptables-min-sync-period=100ms",
                "--iptables-sync-period=1s"), Map.of());
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "vxlan0"), hns,
                HostMacLookup.emulated(), stateDir, null, List.of("127.0.0.1"), null, null));
    }

    @AfterEach
    void stop() {
        agent.close();
        server.close();
    }

    @Test
    void withoutASourceVipNothingIsProgrammedUntilTheCniCreatesItsSourceVipEndpoint() throws Exception {
        Thread.sleep(3000);
        assertThat(hns.listLoadBalancerIds()).as("no load balancer without SNAT").isEmpty();

        host.ensureHostEndpoint("10.244.1.2");

        Eventually.await(Duration.ofSeconds(30), "the service programmed", () -> hns.listLoadBalancerIds().size() == 1);
        HostComputeLoadBalancer lb = hns.getLoadBalancer(hns.listLoadBalancerIds().get(0)).orElseThrow();
        assertThat(lb.sourceVip()).isEqualTo("10.244.1.2");
    }
}
