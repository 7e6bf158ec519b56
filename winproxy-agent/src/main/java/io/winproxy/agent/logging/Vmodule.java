package io.winproxy.agent.logging;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * klog's {@code --vmodule} syntax, {@code pattern=level,pattern=level}. In winproxy a pattern names a logger
 * (a package or class such as {@code io.winproxy.agent.sync}); Go file patterns ({@code proxier*=5},
 * {@code *.go}) are accepted but match no Java logger. Stateless.
 */
public final class Vmodule {
    private Vmodule() {
    }

    /**
     * The entries in order, pattern to level.
     *
     * @throws IllegalArgumentException for an entry without {@code =}, an empty pattern or a level that is not a
     *                                  non-negative integer
     */
    public static Map<String, Integer> entries(String text) {
        Map<String, Integer> out = new LinkedHashMap<>();
        if (text == null || text.isBlank()) {
            return Collections.unmodifiableMap(out);
        }
        for (String part : text.split(",")) {
            if (part.isBlank()) {
                continue;
            }
            String[] kv = part.split("=", 2);
            String pattern = kv[0].trim();
            if (kv.length != 2 || pattern.isEmpty()) {
                throw new IllegalArgumentException("expect comma-separated list of pattern=N, got \"" + part.trim()
                        + "\"");
            }
            try {
                int level = Integer.parseInt(kv[1].trim());
                if (level < 0) {
                    throw new NumberFormatException();
                }
                out.put(pattern, level);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid verbosity \"" + kv[1].trim() + "\" for pattern \""
                        + pattern + "\"");
            }
        }
        return Collections.unmodifiableMap(out);
    }

    /** The canonical text ({@code a=1,b=2}) of a validated vmodule value. */
    public static String normalize(String text) {
        StringBuilder out = new StringBuilder();
        entries(text).forEach((k, v) -> out.append(out.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return out.toString();
    }
}
