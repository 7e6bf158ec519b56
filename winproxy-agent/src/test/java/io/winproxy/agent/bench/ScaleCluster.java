package io.winproxy.agent.bench;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The synthetic overlay cluster of the scale benchmark, in the shape of vfp-policy's {@code BenchCluster}:
 * {@code services} single-port TCP Services (every tenth a NodePort), each with one EndpointSlice of
 * {@code endpointsPerService} ready pods. Node {@code n} of {@link #NODES} has pod CIDR {@code 10.(100+n).0.0/16}
 * and InternalIP {@code 192.168.(n/250).(n%250+1)}; node 0 is this node. Every tenth pod (pod {@code e} with
 * {@code e % 10 == 0}, so the first pod of each Service when it has 10) runs on this node, where the emulated CNI
 * gives it a local endpoint; the others are spread round-robin over the 99 other nodes and need remote endpoints.
 * Every pod IP is distinct. Deterministic: the same arguments give equal objects.
 */
final class ScaleCluster {
    static final int NODES = 100;
    /** One pod in this many runs on this node. */
    static final int LOCAL_EVERY = 10;
    static final String THIS_NODE = "node-0";
    static final String NETWORK = "vxlan0";
    static final String SOURCE_VIP = "10.100.255.254";
    static final String NAMESPACE = "bench";

    private final int services;
    private final int endpointsPerService;

    ScaleCluster(int services, int endpointsPerService) {
        // The limits keep every cluster IP in 10.96.0.0/16 and this node's pods in its /16 (250 a third octet).
        if (services < 1 || services > 60_000 || endpointsPerService < 1 || endpointsPerService > 250
                || (long) services * endpointsPerService > 600_000) {
            throw new IllegalArgumentException("services must be 1-60000, endpoints per service 1-250 and"
                    + " endpoints 600000 at most");
        }
        this.services = services;
        this.endpointsPerService = endpointsPerService;
    }

    int services() {
        return services;
    }

    int endpointsPerService() {
        return endpointsPerService;
    }

    private static String nodeName(int n) {
        return "node-" + n;
    }

    private static String nodeIp(int n) {
        return String.format(Locale.ROOT, "192.168.%d.%d", n / 250, n % 250 + 1);
    }

    private static String podCidr(int n) {
        return String.format(Locale.ROOT, "10.%d.0.0/16", 100 + n);
    }

    /** The node pod number {@code e} (0-based over all endpoints) runs on. */
    private static int nodeOf(int e) {
        return e % LOCAL_EVERY == 0 ? 0 : 1 + remoteIndex(e) % (NODES - 1);
    }

    /** Among the pods not on this node, the position of pod {@code e}. */
    private static int remoteIndex(int e) {
        return e - e / LOCAL_EVERY - 1;
    }

    /** The IP of pod {@code e}: the next free address of its node's pod CIDR. */
    private static String podIp(int e) {
        int host = e % LOCAL_EVERY == 0 ? e / LOCAL_EVERY : remoteIndex(e) / (NODES - 1);
        return String.format(Locale.ROOT, "10.%d.%d.%d", 100 + nodeOf(e), host / 250, host % 250 + 1);
    }

    private static String clusterIp(int i) {
        return String.format(Locale.ROOT, "10.96.%d.%d", i / 250, i % 250 + 1);
    }

    /** Every node, as the emulated CNI builds the overlay network from them (remote-subnet routes). */
    List<EmulatedHost.Node> nodes() {
        List<EmulatedHost.Node> out = new ArrayList<>(NODES);
        for (int n = 0; n < NODES; n++) {
            out.add(new EmulatedHost.Node(nodeName(n), podCidr(n), nodeIp(n)));
        }
        return out;
    }

    /** This node as its informer reports it. */
    /** Programs {@code hns} as this node's CNI would: the overlay network, the source-VIP host endpoint, local pods. */
    void setUpHost(HnsEmulator hns) {
        EmulatedHost host = new EmulatedHost(hns, EmulatedHost.NetworkType.OVERLAY, NETWORK, THIS_NODE);
        host.syncNetwork(nodes());
        host.ensureHostEndpoint(SOURCE_VIP);
        host.syncLocalEndpoints(localPodIps());
    }

    NodeInfo thisNode() {
        return new NodeInfo(THIS_NODE, Map.of(), List.of(podCidr(0)), List.of(nodeIp(0)), null, false, List.of());
    }

    /** The IPs of the pods scheduled on this node (their local endpoints are the CNI's). */
    Set<String> localPodIps() {
        Set<String> out = new HashSet<>();
        for (int e = 0; e < services * endpointsPerService; e += LOCAL_EVERY) {
            out.add(podIp(e));
        }
        return out;
    }

    ServiceInfo service(int i) {
        boolean nodePort = i % 10 == 0;
        return new ServiceInfo(NAMESPACE, "svc-" + i, nodePort ? "NodePort" : "ClusterIP", List.of(clusterIp(i)),
                List.of("IPv4"), List.of(new ServiceInfo.ServicePortSpec("http", "TCP", 80, "8080",
                nodePort ? 30000 + i / 10 : 0)), List.of(), List.of(), "None", 0, null, null, 0, null, null);
    }

    /** The slice of Service {@code i}; its endpoint number {@code notReady} (none when -1) is not ready. */
    EndpointSliceInfo slice(int i, int notReady) {
        List<EndpointSliceInfo.SliceEndpoint> endpoints = new ArrayList<>(endpointsPerService);
        for (int k = 0; k < endpointsPerService; k++) {
            int e = i * endpointsPerService + k;
            boolean ready = k != notReady;
            endpoints.add(new EndpointSliceInfo.SliceEndpoint(List.of(podIp(e)), ready, ready, false,
                    nodeName(nodeOf(e)), null, null, null));
        }
        return new EndpointSliceInfo(NAMESPACE, "svc-" + i + "-abcde", "svc-" + i, "IPv4",
                List.of(new EndpointSliceInfo.SlicePort("http", "TCP", 8080)), endpoints, null);
    }

    /**
     * The endpoint the "one endpoint change" scenario flips to not ready, as {@code {service, endpoint}}: one of a
     * ClusterIP Service (not a NodePort) whose pod runs on another node, so that the change touches one load
     * balancer and one remote endpoint.
     */
    int[] changedEndpoint() {
        for (int i = 0; i < services; i++) {
            if (i % 10 == 0) {
                continue; // a NodePort Service
            }
            for (int k = 0; k < endpointsPerService; k++) {
                if (nodeOf(i * endpointsPerService + k) != 0) {
                    return new int[] {i, k};
                }
            }
        }
        return new int[] {0, 0};
    }
}
