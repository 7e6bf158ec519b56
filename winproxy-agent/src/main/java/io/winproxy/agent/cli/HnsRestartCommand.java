package io.winproxy.agent.cli;

import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsRestart;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code winproxy hns restart [--down D] [--rehydrate-after D | --rehydrate-later] --hns-state FILE}: emulates an
 * HNS service restart on an emulated host (load balancers and remote endpoints are dropped; networks and local
 * endpoints stay), optionally with downtime and with the dropped objects coming back under their old IDs, as real
 * HNS rehydrates the policies it persisted.
 */
@Command(name = "restart", description = "Emulate an HNS service restart on an emulated host (--hns-state FILE).")
public final class HnsRestartCommand extends EmulatedHostCommand {
    @Option(names = "--down", paramLabel = "DURATION",
            description = "HNS answers every call with ERROR_SERVICE_NOT_ACTIVE for this long (default 0s).")
    String down;

    @Option(names = "--rehydrate-after", paramLabel = "DURATION",
            description = "The dropped load balancers and remote endpoints come back with their old IDs after "
                    + "this long.")
    String rehydrateAfter;

    @Option(names = "--rehydrate-later",
            description = "Keep the dropped objects until 'hns rehydrate' brings them back.")
    boolean rehydrateLater;

    private Duration downtime;
    private HnsRestart restart;

    @Override
    void parseOptions() {
        if (rehydrateAfter != null && rehydrateLater) {
            throw new UsageException("--rehydrate-later: cannot be combined with --rehydrate-after");
        }
        downtime = down == null ? Duration.ZERO : HnsFaultCommand.duration("--down", down);
        restart = rehydrateAfter != null
                ? HnsRestart.rehydratingAfter(HnsFaultCommand.duration("--rehydrate-after", rehydrateAfter))
                : rehydrateLater ? HnsRestart.rehydratingOnCommand() : HnsRestart.DROP;
    }

    @Override
    void run(HnsEmulator hns, CliContext context) {
        HnsRestart.Counts dropped = hns.restartHns(restart.withDown(downtime));
        StringBuilder line = new StringBuilder("Restarted emulated HNS: dropped ").append(dropped.loadBalancers())
                .append(" load balancer(s) and ").append(dropped.remoteEndpoints()).append(" remote endpoint(s)");
        if (!downtime.isZero()) {
            line.append("; down for ").append(downtime.toMillis()).append(" ms");
        }
        switch (restart.rehydration()) {
            case AFTER_DELAY -> line.append("; they come back with their old IDs in ")
                    .append(restart.rehydrateAfter().toMillis()).append(" ms");
            case ON_COMMAND -> line.append("; 'hns rehydrate' brings them back with their old IDs");
            case NONE -> { }
        }
        context.out().println(line);
    }

    /** {@code hns rehydrate}: brings back now what earlier restarts kept. */
    @Command(name = "rehydrate", description = "Bring back what an emulated HNS restart kept for rehydration.")
    static final class Rehydrate extends EmulatedHostCommand {
        @Override
        void run(HnsEmulator hns, CliContext context) {
            boolean pending = hns.pendingRehydration().isPresent();
            HnsRestart.Counts restored = hns.rehydrate();
            context.out().println(pending
                    ? "Rehydrated " + restored.loadBalancers() + " load balancer(s) and " + restored.remoteEndpoints()
                            + " remote endpoint(s) with their old IDs"
                    : "Nothing to rehydrate");
        }
    }
}
