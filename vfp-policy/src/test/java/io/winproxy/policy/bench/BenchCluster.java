package io.winproxy.policy.bench;

import io.winproxy.policy.desired.NetworkType;
import io.winproxy.policy.desired.NodeNetwork;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.testing.Slice;
import io.winproxy.policy.testing.Svc;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A synthetic overlay cluster for the benchmarks: {@code servicePorts} single-port Services (every tenth a NodePort),
 * each backed by one EndpointSlice of {@code endpointsPerPort} pods spread round-robin over {@link #NODES} nodes.
 * Node {@code n} has pod CIDR {@code 10.(100+n).0.0/16}; node 0 is this node, so one endpoint in a hundred is local
 * and the rest need remote endpoints through their node's provider address {@code 192.168.(n/250).(n%250+1)}.
 * Every pod IP is distinct. Deterministic: the same arguments give equal objects.
 */
final class BenchCluster {
    static final int NODES = 100;
    static final String THIS_NODE = "node-0";

    private final int servicePorts;
    private final int endpointsPerPort;

    BenchCluster(int servicePorts, int endpointsPerPort) {
        if (servicePorts < 1 || servicePorts > 60_000 || endpointsPerPort < 1 || endpointsPerPort > 250) {
            throw new IllegalArgumentException("servicePorts must be 1-60000 and endpointsPerPort 1-250");
        }
        this.servicePorts = servicePorts;
        this.endpointsPerPort = endpointsPerPort;
    }

    private static String nodeName(int n) {
        return "node-" + n;
    }

    private static String providerAddress(int n) {
        return String.format(Locale.ROOT, "192.168.%d.%d", n / 250, n % 250 + 1);
    }

    /** Pod IP number {@code e} (0-based over all endpoints); lives on node {@code e % NODES}. */
    private static String podIp(int e) {
        int n = e % NODES;
        int host = e / NODES;
        return "10." + (100 + n) + "." + host / 250 + "." + (host % 250 + 1);
    }

    private static String clusterIp(int i) {
        return String.format(Locale.ROOT, "10.96.%d.%d", i / 250, i % 250 + 1);
    }

    List<ServiceInfo> services() {
        List<ServiceInfo> out = new ArrayList<>(servicePorts);
        for (int i = 0; i < servicePorts; i++) {
            boolean nodePort = i % 10 == 0;
            out.add(Svc.svc("bench", "svc-" + i).type(nodePort ? "NodePort" : "ClusterIP").clusterIp(clusterIp(i))
                    .port("http", "TCP", 80, "8080", nodePort ? 30000 + i / 10 : 0).build());
        }
        return out;
    }

    /** The slice of Service {@code i}; with {@code firstNotReady} its first endpoint is not ready. */
    EndpointSliceInfo slice(int i, boolean firstNotReady) {
        Slice slice = Slice.slice("bench", "svc-" + i + "-abcde", "svc-" + i).port("http", 8080);
        for (int k = 0; k < endpointsPerPort; k++) {
            int e = i * endpointsPerPort + k;
            boolean ready = !(firstNotReady && k == 0);
            slice.endpoint(podIp(e), nodeName(e % NODES), ready, ready, false);
        }
        return slice.build();
    }

    /** This node's network: overlay, source VIP, a remote subnet per other node, its own pods as local endpoints. */
    NodeNetwork node() {
        return node(-1);
    }

    /** {@link #node()} without the local HNS endpoint of pod {@code missing} (its CNI endpoint is not there yet). */
    NodeNetwork node(int missing) {
        NodeNetwork.Builder b = NodeNetwork.builder(NetworkType.OVERLAY, THIS_NODE).networkName("vxlan0")
                .nodeIp(providerAddress(0)).sourceVip("10.100.255.254").hostMac("00-15-5d-00-00-01");
        for (int n = 1; n < NODES; n++) {
            b.remoteSubnet(String.format(Locale.ROOT, "10.%d.0.0/16", 100 + n), providerAddress(n));
        }
        for (int e = 0; e < servicePorts * endpointsPerPort; e += NODES) {
            if (e != missing) {
                b.localEndpoint(podIp(e));
            }
        }
        return b.build();
    }
}
