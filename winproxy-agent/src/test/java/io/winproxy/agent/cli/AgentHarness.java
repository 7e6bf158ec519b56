package io.winproxy.agent.cli;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceFluent;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.winproxy.agent.config.ConfigResolver;
import io.winproxy.agent.config.ProxyConfig;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.dataplane.DriftBudget;
import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.agent.demo.EmbeddedApiServer;
import io.winproxy.agent.pipeline.HostMacLookup;
import io.winproxy.agent.pipeline.NodeFacts;
import io.winproxy.agent.sync.HostView;
import io.winproxy.agent.sync.NodeNetworkFactory;
import io.winproxy.agent.sync.SyncReport;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.trace.Packet;
import io.winproxy.policy.trace.PacketTracer;
import io.winproxy.policy.trace.TraceResult;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * An agent under test: the embedded CRUD API server, the HNS emulator with an emulated overlay CNI for node win-a
 * (win-b is the other node), and the real {@link ProxyAgent} (informers, sync loop, dataplane) between them. HNS
 * state is asserted by tracing packets through what the emulator holds.
 */
final class AgentHarness implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(30);
    static final String NETWORK = "overlay";
    static final String SOURCE_VIP = "10.244.1.2";

    final KubernetesCrudDispatcher dispatcher = new KubernetesCrudDispatcher();
    /** HNS 15.5, where a modify (the tests' "change behind the agent's back") really changes the backends. */
    final HnsEmulator hns = HnsEmulator.builder().version(new HnsVersion(15, 5)).build();
    final EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, NETWORK, "win-a");
    final List<SyncReport> reports = new CopyOnWriteArrayList<>();
    final Path stateDir;
    EmbeddedApiServer server;
    ProxyAgent agent;

    AgentHarness(Path stateDir) {
        this.stateDir = stateDir;
        this.server = EmbeddedApiServer.start(0, dispatcher);
        host.syncNetwork(List.of(new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
                new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12")));
        host.ensureHostEndpoint(SOURCE_VIP);
        api().nodes().resource(AgentProcess.node("win-a", "10.244.1.0/24", "192.168.1.11")).create();
    }

    KubernetesClient api() {
        return server.client();
    }

    ProxyConfig config() throws Exception {
        return ConfigResolver.resolve(ProxyFlags.parse("--hostname-override=win-a", "--network-name=" + NETWORK,
                "--source-vip=" + SOURCE_VIP, "--master=" + server.url(), "--healthz-bind-address=",
                "--metrics-bind-address=", "--iptables-min-sync-period=100ms", "--iptables-sync-period=2s"),
                Map.of());
    }

    void startAgent() throws Exception {
        reports.clear();
        // Every owned object is re-checked for content drift once per sync period (2s), as
        // --hns-drift-check-period=2s would.
        ProxyConfig config = config();
        agent = ProxyAgent.start(new ProxyAgent.Setup(config, NodeFacts.of(config, NETWORK), hns,
                HostMacLookup.emulated(), stateDir, null, List.of("127.0.0.1"), reports::add,
                handler -> new DemoCni(host, handler),
                new DriftBudget(Duration.ofSeconds(2), 100)));
    }

    void stopAgent() {
        if (agent != null) {
            agent.close();
            agent = null;
        }
    }

    /** Stops the API server; {@link #restartServer()} brings it back on the same port with the same objects. */
    void stopServer() {
        server.close();
    }

    void restartServer() {
        server = EmbeddedApiServer.start(server.port(), dispatcher);
    }

    boolean syncedSuccessfully() {
        return reports.stream().anyMatch(r -> r.result().complete());
    }

    /**
     * True once the newest sync was complete and wrote nothing: every sync before it has ended, so nothing the
     * agent planned is still being written (a load balancer can be in place while its sync still creates an
     * endpoint after it).
     */
    boolean converged() {
        if (reports.isEmpty()) {
            return false;
        }
        SyncReport last = reports.get(reports.size() - 1);
        return last.result().complete() && last.result().writes() == 0;
    }

    /** Traces a packet through the load balancers the emulated HNS holds now. */
    TraceResult trace(String src, String dstIp, int port, Protocol protocol) {
        HnsDataplane reader = new HnsDataplane(hns, NETWORK, OwnershipJournal.inMemory(), Duration.ofSeconds(30),
                System::nanoTime);
        ObservedState observed = reader.observe();
        NodeInfo node = new NodeInfo("win-a", Map.of(), List.of("10.244.1.0/24"), List.of("192.168.1.11"), null,
                false, List.of());
        var network = NodeNetworkFactory.withoutHostMac("win-a", SOURCE_VIP, "cbr0", "")
                .build(new HostView(reader.network().orElseThrow(), reader.endpoints()), node);
        return PacketTracer.trace(observed, network, new Packet(src, dstIp, port, protocol));
    }

    static Service service(String namespace, String name, String clusterIp, int port, int targetPort) {
        return new ServiceBuilder().withNewMetadata().withNamespace(namespace).withName(name).endMetadata()
                .withNewSpec().withType("ClusterIP").withClusterIP(clusterIp).withClusterIPs(clusterIp)
                .withIpFamilies("IPv4").addNewPort().withName("http").withProtocol("TCP").withPort(port)
                .withNewTargetPort(targetPort).endPort().endSpec().build();
    }

    /** A slice of {@code service}; each endpoint is {@code ip@node}. */
    static EndpointSlice slice(String namespace, String name, String service, int port, String... endpoints) {
        EndpointSliceBuilder b = new EndpointSliceBuilder();
        b.withNewMetadata().withNamespace(namespace).withName(name)
                .withLabels(Map.of("kubernetes.io/service-name", service)).endMetadata()
                .withAddressType("IPv4").addNewPort().withName("http").withProtocol("TCP").withPort(port).endPort();
        for (String endpoint : endpoints) {
            String[] parts = endpoint.split("@");
            EndpointSliceFluent<EndpointSliceBuilder>.EndpointsNested<EndpointSliceBuilder> ep = b.addNewEndpoint();
            ep.withAddresses(parts[0]).withNodeName(parts[1]).withNewConditions().withReady(true).endConditions()
                    .endEndpoint();
        }
        return b.build();
    }

    @Override
    public void close() {
        stopAgent();
        server.close();
    }
}
