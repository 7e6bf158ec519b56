package io.winproxy.agent.check;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The node's TCP dynamic port range, from which HNS reserves ports for every non-DSR load balancer. On Windows it is
 * read with {@code netsh int ipv4 show dynamicport tcp} (the numbers are the same in every display language:
 * the first number is the start port, the second the number of ports).
 *
 * @param start the first port
 * @param count the number of ports
 */
public record DynamicPortRange(int start, int count) {
    private static final Pattern NUMBER = Pattern.compile("(\\d+)\\s*$", Pattern.MULTILINE);

    /**
     * Parses netsh's answer: {@code Start Port : 49152} and {@code Number of Ports : 16384} (two lines ending in a
     * number, in that order).
     */
    public static Optional<DynamicPortRange> parse(String netshOutput) {
        Matcher m = NUMBER.matcher(netshOutput == null ? "" : netshOutput);
        Integer first = null;
        while (m.find()) {
            int value = Integer.parseInt(m.group(1));
            if (first == null) {
                first = value;
            } else {
                boolean plausible = value > 0 && first > 0 && first + value <= 65536;
                return plausible ? Optional.of(new DynamicPortRange(first, value)) : Optional.empty();
            }
        }
        return Optional.empty();
    }

    /** Runs netsh on Windows (5 s at most); empty elsewhere or when it fails. */
    public static Optional<DynamicPortRange> readWindows() {
        if (!System.getProperty("os.name", "").startsWith("Windows")) {
            return Optional.empty();
        }
        try {
            Process p = new ProcessBuilder("netsh", "int", "ipv4", "show", "dynamicport", "tcp")
                    .redirectErrorStream(true).start();
            String text;
            try (InputStream in = p.getInputStream()) {
                text = new String(in.readNBytes(8192), StandardCharsets.UTF_8);
            }
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? parse(text) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
