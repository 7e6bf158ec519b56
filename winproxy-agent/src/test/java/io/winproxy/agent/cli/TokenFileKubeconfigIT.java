package io.winproxy.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.kube.Eventually;
import io.winproxy.agent.kube.KubeClientFactory;
import io.winproxy.agent.kube.KubeClientSettings;
import io.winproxy.agent.kube.LoopbackTcpProxy;
import io.winproxy.agent.kube.TokenCheckingDispatcher;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubeadm's kube-proxy kubeconfig authenticates with {@code user.tokenFile} (the projected service-account token that
 * kubelet rotates). The agent runs with such a kubeconfig against an API server that answers 401 to any request
 * without the current token; the token is replaced while the informers' watches run, the old one stops being
 * accepted, and the watches' connections are cut: the agent reconnects with the new token and programs a Service
 * created after the rotation.
 */
class TokenFileKubeconfigIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path dir;

    private final TokenCheckingDispatcher dispatcher = new TokenCheckingDispatcher("winproxy", "token-one");
    private final HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
    private EmbeddedApiServer server;
    private LoopbackTcpProxy proxy;
    private ProxyAgent agent;

    @BeforeEach
    void start() throws Exception {
        server = EmbeddedApiServer.start(0, dispatcher);
        proxy = new LoopbackTcpProxy(server.port()).start();
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.L2BRIDGE, "cbr0", "win-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11")));
        host.syncLocalEndpoints(Set.of("10.244.1.5", "10.244.1.6"));
        server.client().nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
        server.client().resource(AgentHarness.service("default", "web", "10.96.0.80", 80, 8080)).create();
        server.client().resource(AgentHarness.slice("default", "web-1", "web", 8080, "10.244.1.5@win-a")).create();
    }

    @AfterEach
    void stop() throws Exception {
        if (agent != null) {
            agent.close();
        }
        proxy.close();
        server.close();
    }

    /** kubeadm's kube-proxy kubeconfig, with the token file beside it named relatively (resolved as client-go does). */
    private Path kubeconfig(String user) throws Exception {
        return Files.writeString(dir.resolve("kubeconfig.conf"), """
                apiVersion: v1
                kind: Config
                clusters:
                - cluster:
                    server: %s
                  name: default
                contexts:
                - context:
                    cluster: default
                    namespace: default
                    user: default
                  name: default
                current-context: default
                users:
                - name: default
                  user:
                %s
                """.formatted(proxy.url(), user.indent(4).stripTrailing()));
    }

    private void writeToken(String token) throws Exception {
        // as kubelet's atomic writer: a new file moved into place
        Path next = Files.writeString(dir.resolve("token.next"), token + "\n");
        Files.move(next, dir.resolve("token"), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private List<String> frontends() {
        return hns.listLoadBalancerIds().stream().map(id -> hns.getLoadBalancer(id).orElseThrow())
                .flatMap((HostComputeLoadBalancer lb) -> lb.frontendVips().stream()).toList();
    }

    @Test
    void theAgentAuthenticatesWithTheTokenFileAndFollowsItsRotationWhileTheWatchesRun() throws Exception {
        writeToken("token-one");
        Path kubeconfig = kubeconfig("tokenFile: token");
        ProxyConfig config = ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a",
                "--network-name=cbr0", "--kubeconfig=" + kubeconfig, "--healthz-bind-address=",
                "--metrics-bind-address=", "--iptables-min-sync-period=100ms", "--iptables-sync-period=1s"), Map.of());
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, "cbr0"), hns,
                HostMacLookup.emulated(), dir.resolve("state"), null, List.of("127.0.0.1"), null, null));

        Eventually.await(TIMEOUT, "web programmed", () -> frontends().contains("10.96.0.80"));
        assertThat(dispatcher.accepted()).isNotEmpty().containsOnly("token-one");

        writeToken("token-two");
        dispatcher.rotate("token-two");
        proxy.dropConnections();
        server.client().resource(AgentHarness.service("default", "shop", "10.96.0.90", 80, 8080)).create();
        server.client().resource(AgentHarness.slice("default", "shop-1", "shop", 8080, "10.244.1.6@win-a"))
                .create();

        Eventually.await(TIMEOUT, "shop, created after the rotation, programmed",
                () -> frontends().contains("10.96.0.90"));
        List<String> accepted = dispatcher.accepted();
        assertThat(accepted.subList(accepted.indexOf("token-two"), accepted.size()))
                .as("after the rotation only the new token is sent").containsOnly("token-two");
    }

    @Test
    void withoutTheTokenFileTheSameServerRejectsTheClient() throws Exception {
        Path kubeconfig = kubeconfig("{}");
        try (KubernetesClient client = new KubeClientFactory().create(new KubeClientSettings(kubeconfig.toString(),
                null, null, null, 0f, 0))) {
            assertThatThrownBy(() -> client.services().inAnyNamespace().list())
                    .isInstanceOfSatisfying(KubernetesClientException.class, e -> assertThat(e.getCode())
                            .isEqualTo(401));
        }
        assertThat(dispatcher.rejected()).isPositive();
    }
}
