package io.winproxy.agent.check;

import io.winproxy.hns.emulator.EmulatedHost;
import java.util.List;

/** The two Windows nodes of the example cluster, as an emulated network sees them (win-node-1 is this node). */
final class TwoNodes {
    static final List<EmulatedHost.Node> NODES = List.of(
            new EmulatedHost.Node("win-node-1", "10.244.1.0/24", "10.0.0.11"),
            new EmulatedHost.Node("win-node-2", "10.244.2.0/24", "10.0.0.12"));

    private TwoNodes() {
    }
}
