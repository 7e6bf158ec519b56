package io.winproxy.agent.dataplane;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The small cluster the dataplane tests program: node win-a (10.244.1.0/24, local pod 10.244.1.5) on the overlay
 * network "overlay" with win-b (10.244.2.0/24 behind 192.168.1.12); the web Service (10.96.0.80:80/TCP to 8080) with
 * a local and a remote backend, and kube-dns (10.96.0.10:53/UDP) with the local pod.
 */
final class DataplaneWorld {
    static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);
    static final ServicePortName DNS = new ServicePortName("kube-system", "kube-dns", "dns", Protocol.UDP);
    static final Duration SYNC_PERIOD = Duration.ofSeconds(30);
    /** win-b's pod 10.244.2.6, web's remote backend. */
    static final DesiredRemoteEndpoint REMOTE = new DesiredRemoteEndpoint("10.244.2.6", "192.168.1.12",
            "02-11-0a-f4-02-06");
    /** win-a (this node, provider address 192.168.1.11) and win-b (192.168.1.12). */
    static final List<EmulatedHost.Node> NODES = List.of(
            new EmulatedHost.Node("win-a", "10.244.1.0/24", "192.168.1.11"),
            new EmulatedHost.Node("win-b", "10.244.2.0/24", "192.168.1.12"));

    private DataplaneWorld() {
    }

    /** Builds win-a's overlay network and its local endpoint 10.244.1.5 on {@code hns}. */
    static EmulatedHost overlayHost(HnsEmulator hns) {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, "overlay", "win-a");
        host.syncNetwork(NODES);
        host.syncLocalEndpoints(Set.of("10.244.1.5"));
        return host;
    }

    /** web's ClusterIP load balancer with its local and remote backend. */
    static DesiredLoadBalancer web() {
        return web(List.of("10.244.1.5", "10.244.2.6"));
    }

    static DesiredLoadBalancer web(List<String> backends) {
        return new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.80", Protocol.TCP, 80), 8080, backends, "", 0, 0, 0);
    }

    static DesiredLoadBalancer dns() {
        return new DesiredLoadBalancer(DNS, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, "10.96.0.10", Protocol.UDP, 53), 53, List.of("10.244.1.5"), "", 0,
                0, 0);
    }

    /** web and kube-dns, and the remote endpoint web needs. */
    static DesiredState desired() {
        return new DesiredState(List.of(web(), dns()), List.of(REMOTE), List.of());
    }
}
