package io.winproxy.agent.zpages;

import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * The text of component-base's {@code /statusz} and {@code /flagz} pages (Kubernetes v1.33), which vary their
 * delimiter at random ({@code :}, {@code : }, {@code =} or a blank) so that nobody parses them. Stateless.
 */
public final class ZPageText {
    static final List<String> DELIMITERS = List.of(":", ": ", "=", " ");
    static final String WARNING = "Warning: This endpoint is not meant to be machine parseable, has no formatting"
            + " compatibility guarantees and is for debugging purposes only.";
    /** Go's {@code time.UnixDate}: {@code Mon Jan _2 15:04:05 MST 2006}. */
    private static final DateTimeFormatter UNIX_DATE = DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss zzz yyyy",
            Locale.US);

    private ZPageText() {
    }

    /** A delimiter of {@link #DELIMITERS}, chosen by {@code random}. */
    static String delimiter(RandomGenerator random) {
        return DELIMITERS.get(random.nextInt(DELIMITERS.size()));
    }

    /**
     * {@code /statusz}: the component, its start time and uptime, the runtime (Java here, where kube-proxy shows Go),
     * the binary version and the emulation version.
     */
    static String statusz(String component, Instant started, Instant now, ZoneId zone, String runtimeVersion,
                          String binaryVersion, String emulationVersion, String delim) {
        return statusz(component, started, now, zone, runtimeVersion, binaryVersion, emulationVersion, delim, "");
    }

    /** As above, plus winproxy's {@code Source VIP} line (overlay) when {@code sourceVip} is not empty. */
    static String statusz(String component, Instant started, Instant now, ZoneId zone, String runtimeVersion,
                          String binaryVersion, String emulationVersion, String delim, String sourceVip) {
        long up = Math.max(0, Duration.between(started, now).getSeconds());
        String uptime = String.format(Locale.ROOT, "%d hr %02d min %02d sec", up / 3600, (up / 60) % 60, up % 60);
        return "\n" + component + " statusz\n" + WARNING + "\n"
                + "\nStarted" + delim + " " + UNIX_DATE.format(started.atZone(zone))
                + "\nUp" + delim + " " + uptime
                + "\nGo version" + delim + " " + runtimeVersion
                + "\nBinary version" + delim + " " + binaryVersion
                + "\nEmulation version" + delim + " " + emulationVersion
                + (sourceVip.isEmpty() ? "" : "\nSource VIP" + delim + " " + sourceVip)
                + "\n\n";
    }

    /** {@code /flagz}: every flag as {@code name<delim>value}, sorted by name. */
    static String flagz(String component, Map<String, String> flags, String delim) {
        StringBuilder out = new StringBuilder("\n" + component + " flags\n" + WARNING + "\n\n");
        new TreeMap<>(flags).forEach((name, value) -> out.append(name).append(delim).append(value).append('\n'));
        return out.toString();
    }
}
