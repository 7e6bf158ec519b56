package io.winproxy.hns.emulator;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A separate process for {@link EmulatorStateFileIT}: opens the emulated host in {@code args[0]} and creates
 * {@code args[3]} ClusterIP load balancers on VIP {@code args[2]} (ports 1..n) backed by endpoint {@code args[1]}.
 * An optional {@code args[4]} sets the size past which the change log is compacted (0: after nearly every write).
 */
public final class StateFileWriterMain {
    private StateFileWriterMain() {
    }

    public static void main(String[] args) {
        Path file = Path.of(args[0]);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no state file " + file);
        }
        HnsEmulator.Builder builder = HnsEmulator.builder().stateFile(file);
        if (args.length > 4) {
            builder.compactMinBytes(Long.parseLong(args[4]));
        }
        HnsEmulator hns = builder.build();
        int n = Integer.parseInt(args[3]);
        for (int port = 1; port <= n; port++) {
            hns.createLoadBalancer(EmulatorFixture.clusterIp(args[2], port, 0, args[1]));
        }
    }
}
