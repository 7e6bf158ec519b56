package io.winproxy.hns.emulator;

import java.nio.file.Path;

/**
 * A separate process for {@link EmulatorStateFileIT}: opens the emulated host in {@code args[0]} and creates
 * {@code args[3]} ClusterIP load balancers on VIP {@code args[2]} (ports 1..n) backed by endpoint {@code args[1]}.
 */
public final class StateFileWriterMain {
    private StateFileWriterMain() {
    }

    public static void main(String[] args) {
        HnsEmulator hns = HnsEmulator.openExisting(Path.of(args[0]));
        int n = Integer.parseInt(args[3]);
        for (int port = 1; port <= n; port++) {
            hns.createLoadBalancer(EmulatorFixture.clusterIp(args[2], port, 0, args[1]));
        }
    }
}
