package io.winproxy.hns.emulator;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.List;

/**
 * A three-node overlay cluster seen from node-a, with two local pod endpoints and one remote endpoint. {@link #create()}
 * reads documents back verbatim ({@link EchoProfile#VERBATIM}), so that tests of rules and call counts can compare
 * what they wrote with what they read; the Windows Server read-back differences have their own tests.
 */
final class EmulatorFixture {
    static final List<EmulatedHost.Node> NODES = List.of(
            new EmulatedHost.Node("node-a", "10.244.1.0/24", "192.168.10.21"),
            new EmulatedHost.Node("node-b", "10.244.2.0/24", "192.168.10.22"),
            new EmulatedHost.Node("node-c", "10.244.3.0/24", "192.168.10.23"));

    final HnsEmulator hns;
    final EmulatedHost host;
    final HostComputeNetwork network;
    final HostComputeEndpoint pod1;
    final HostComputeEndpoint pod2;
    final HostComputeEndpoint remote;

    EmulatorFixture(HnsEmulator hns) {
        this.hns = hns;
        this.host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, null, "node-a");
        this.network = host.syncNetwork(NODES);
        this.pod1 = host.ensureLocalEndpoint("10.244.1.5");
        this.pod2 = host.ensureLocalEndpoint("10.244.1.6");
        this.remote = hns.createEndpoint(network.id(),
                HostComputeEndpoint.remote(network.id(), "10.244.2.7", "02-11-0A-F4-02-07", "192.168.10.22"));
        hns.journal().reset();
    }

    static EmulatorFixture create() {
        return new EmulatorFixture(HnsEmulator.builder().seed(42).echo(EchoProfile.VERBATIM).build());
    }

    /** A ClusterIP-style LB on {@code vip:port/TCP} to the given endpoints (target port 8080). */
    static HostComputeLoadBalancer clusterIp(String vip, int port, int flags, String... endpointIds) {
        return HostComputeLoadBalancer.of(List.of(endpointIds), "", vip,
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 8080, port, 0,
                        LoadBalancerPortMapping.FLAG_ILB), flags);
    }

    /** A VIP-less NodePort-style LB on {@code port/TCP}. */
    static HostComputeLoadBalancer nodePort(int port, String... endpointIds) {
        return HostComputeLoadBalancer.of(List.of(endpointIds), "", null,
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_TCP, 8080, port, 0, 0), 0);
    }
}
