package io.winproxy.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's resident set from {@code /proc/self/status} (Linux): {@code VmRSS} now and {@code VmHWM}, the peak
 * since the process started or since {@link #resetPeak()} (which writes {@code 5} to {@code /proc/self/clear_refs}).
 * Both are -1 where there is no {@code /proc} (the benchmark then prints them as unknown).
 *
 * @param bytes     the resident set now
 * @param peakBytes the peak resident set
 */
record Rss(long bytes, long peakBytes) {
    private static final Path STATUS = Path.of("/proc/self/status");

    static Rss now() {
        long rss = -1;
        long peak = -1;
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    rss = kib(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = kib(line);
                }
            }
        } catch (IOException e) {
            return new Rss(-1, -1);
        }
        return new Rss(rss, peak);
    }

    /** Starts a new peak at the current resident set; a no-op where the kernel does not allow it. */
    static void resetPeak() {
        try {
            Files.writeString(Path.of("/proc/self/clear_refs"), "5");
        } catch (IOException | UnsupportedOperationException e) {
            // the peak then counts from the process start, which can only overstate it
        }
    }

    private static long kib(String line) {
        String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024;
    }
}
