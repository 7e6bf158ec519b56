package io.winproxy.agent.cli;

import io.winproxy.hns.emulator.EmulatedHost;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.nio.file.Path;
import java.util.List;

/**
 * Test fixture for the {@code hns ...} commands that control an emulated host: a state file, the emulator instance
 * another process (the agent) would hold on it, an l2bridge network of one node and one local pod endpoint.
 *
 * @param state the {@code --hns-state} file
 * @param agentSide the emulator the "other process" uses on that file
 * @param pod a local endpoint (10.244.1.7) on node-a
 */
record SharedEmulatedHost(Path state, HnsEmulator agentSide, HostComputeEndpoint pod) {

    /** A fresh host whose state file is {@code dir/hns.json}. */
    static SharedEmulatedHost in(Path dir) {
        Path state = dir.resolve("hns.json");
        HnsEmulator agentSide = HnsEmulator.builder().stateFile(state).build();
        EmulatedHost host = new EmulatedHost(agentSide, EmulatedHost.NetworkType.L2BRIDGE, null, "node-a");
        host.syncNetwork(List.of(new EmulatedHost.Node("node-a", "10.244.1.0/24", "192.168.10.21")));
        return new SharedEmulatedHost(state, agentSide, host.ensureLocalEndpoint("10.244.1.7"));
    }

    /** The state file as a command-line argument (for {@code --hns-state}). */
    String stateFile() {
        return state.toString();
    }

    /** A UDP/53 load balancer on 10.96.0.10 with the pod as its backend (not created). */
    HostComputeLoadBalancer dnsLoadBalancer() {
        return HostComputeLoadBalancer.of(List.of(pod.id()), "", "10.96.0.10",
                new LoadBalancerPortMapping(LoadBalancerPortMapping.PROTOCOL_UDP, 53, 53, 0, 0), 0);
    }
}
