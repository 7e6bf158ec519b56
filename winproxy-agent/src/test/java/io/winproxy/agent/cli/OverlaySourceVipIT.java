package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
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
 * source-VIP endpoint of the CNI, the agent lets HNS assign one (the first free address of the node's subnet) and
 * programs the Service with it, through the real agent (informers, sync loop, dataplane).
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
    void withoutASourceVipHnsAssignsOneAndTheServiceIsProgrammedWithIt() throws Exception {
        Eventually.await(Duration.ofSeconds(30), "the service programmed", () -> hns.listLoadBalancerIds().size() == 1);

        HostComputeLoadBalancer lb = hns.getLoadBalancer(hns.listLoadBalancerIds().get(0)).orElseThrow();
        String network = hns.getNetworkByName("vxlan0").orElseThrow().id();
        HostComputeEndpoint vip = hns.listEndpoints(network).stream()
                .filter(e -> HnsDataplane.SOURCE_VIP_ENDPOINT_NAME.equals(e.name())).findFirst().orElseThrow();
        assertThat(vip.ipAddresses()).containsExactly("10.244.1.2");
        assertThat(vip.isRemote()).isFalse();
        assertThat(lb.sourceVip()).isEqualTo("10.244.1.2");
    }
}
