package io.winproxy.agent.cli;

import io.winproxy.hns.HResults;
import io.winproxy.hns.emulator.FaultSettings;
import io.winproxy.hns.emulator.HnsEmulator;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code demo}'s options to start the emulated host with faults (the same settings as {@code hns fault set}, which
 * changes them while the demo runs). A picocli mixin.
 */
public final class HnsFaultOptions {
    @Option(names = "--hns-fault-rate", paramLabel = "FRACTION",
            description = "Fail this fraction (0..1) of emulated HNS calls at random.")
    Double rate;

    @Option(names = "--hns-fault-seed", paramLabel = "N", description = "Seed of --hns-fault-rate (default 1).")
    Long seed;

    @Option(names = "--hns-fault-hresult", paramLabel = "CODE",
            description = "HRESULT of the random failures (default RPC_S_SERVER_UNAVAILABLE 0x800706BA).")
    String hresult;

    @Option(names = "--hns-latency", paramLabel = "DURATION", description = "Latency of every emulated HNS call.")
    String latency;

    /**
     * Applies the options to {@code hns} (nothing when none is given).
     *
     * @throws UsageException naming the option when a value is invalid
     */
    public void applyTo(HnsEmulator hns) {
        if (rate == null && latency == null) {
            if (seed != null || hresult != null) {
                throw new UsageException((seed != null ? "--hns-fault-seed" : "--hns-fault-hresult")
                        + ": only with --hns-fault-rate");
            }
            return;
        }
        FaultSettings settings = hns.faults().settings();
        if (rate != null) {
            if (!(rate >= 0 && rate <= 1)) {
                throw new UsageException("--hns-fault-rate: must be between 0 and 1: " + rate);
            }
            int code = hresult == null ? FaultSettings.DEFAULT_HRESULT : parse(hresult);
            settings = settings.withRandom(rate == 0 ? null
                    : new FaultSettings.RandomFaults(rate, seed == null ? 1 : seed, code, null));
        }
        if (latency != null) {
            Duration d = HnsFaultCommand.duration("--hns-latency", latency);
            settings = settings.withLatency(d);
        }
        hns.faults().set(settings);
    }

    private static int parse(String text) {
        try {
            return HResults.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--hns-fault-hresult: " + e.getMessage());
        }
    }
}
