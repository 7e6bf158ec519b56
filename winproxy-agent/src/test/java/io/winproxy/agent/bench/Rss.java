package io.winproxy.agent.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's resident set from {@code /proc/PID/status} (Linux): {@code VmRSS} now and {@code VmHWM}, the peak
 * since the process started or since {@link #resetPeak(long)} (which writes {@code 5} to {@code /proc/PID/clear_refs}).
 * Both are -1 where there is no {@code /proc} (the benchmark then prints them as unknown).
 *
 * @param bytes     the resident set now
 * @param peakBytes the peak resident set
 */
record Rss(long bytes, long peakBytes) {
    static Rss of(long pid) {
        long rss = -1;
        long peak = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
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

    /** Starts a new peak at the process's current resident set; a no-op where the kernel does not allow it. */
    static void resetPeak(long pid) {
        try {
            Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
        } catch (IOException | UnsupportedOperationException e) {
            // the peak then counts from the process start, which can only overstate it
        }
    }

    private static long kib(String line) {
        String[] parts = line.substring(line.indexOf(':') + 1).trim().split("\\s+");
        return Long.parseLong(parts[0]) * 1024;
    }
}
