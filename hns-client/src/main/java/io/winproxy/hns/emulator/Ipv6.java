package io.winproxy.hns.emulator;

import java.util.Locale;
import java.util.Optional;

/** Minimal IPv6 text handling for the emulator: parsing a literal into its eight groups and re-rendering it. */
final class Ipv6 {
    private Ipv6() {
    }

    /**
     * The eight 16-bit groups of an IPv6 literal ({@code ::} compression and a trailing dotted IPv4 part accepted, no
     * zone index), or empty when {@code text} is not one.
     */
    static Optional<int[]> parse(String text) {
        if (text == null || !text.contains(":") || text.length() > 45) {
            return Optional.empty();
        }
        String t = text.trim();
        int gap = t.indexOf("::");
        if (gap >= 0 && t.indexOf("::", gap + 1) >= 0) {
            return Optional.empty();
        }
        int[] head = new int[8];
        int[] tail = new int[8];
        int headCount;
        int tailCount;
        if (gap < 0) {
            headCount = groups(t, head, 0);
            tailCount = 0;
            if (headCount != 8) {
                return Optional.empty();
            }
        } else {
            headCount = gap == 0 ? 0 : groups(t.substring(0, gap), head, 0);
            String rest = t.substring(gap + 2);
            tailCount = rest.isEmpty() ? 0 : groups(rest, tail, 0);
            if (headCount < 0 || tailCount < 0 || headCount + tailCount > 7) {
                return Optional.empty();
            }
        }
        if (headCount < 0) {
            return Optional.empty();
        }
        int[] out = new int[8];
        System.arraycopy(head, 0, out, 0, headCount);
        System.arraycopy(tail, 0, out, 8 - tailCount, tailCount);
        return Optional.of(out);
    }

    /** Whether {@code text} is an IPv6 literal {@link #parse} accepts. */
    static boolean isLiteral(String text) {
        return parse(text).isPresent();
    }

    /**
     * The fully expanded form without zero compression or leading zeros, lower-case ({@code fd00:0:0:0:0:0:0:a}),
     * or {@code text} unchanged when it is not an IPv6 literal.
     */
    static String expanded(String text) {
        return parse(text).map(g -> {
            StringBuilder sb = new StringBuilder(39);
            for (int i = 0; i < 8; i++) {
                if (i > 0) {
                    sb.append(':');
                }
                sb.append(Integer.toHexString(g[i]));
            }
            return sb.toString();
        }).orElse(text);
    }

    /**
     * One text per address: the expanded form of an IPv6 literal, any other text lower-cased. Used to compare VIPs
     * as HNS does, by address rather than by spelling.
     */
    static String canonical(String text) {
        if (text == null) {
            return "";
        }
        return parse(text).map(g -> expanded(text)).orElseGet(() -> text.trim().toLowerCase(Locale.ROOT));
    }

    /** Parses colon-separated groups (the last may be dotted IPv4) into {@code out}; the count, or -1 on error. */
    private static int groups(String s, int[] out, int start) {
        String[] parts = s.split(":", -1);
        int n = start;
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i];
            if (i == parts.length - 1 && p.contains(".")) {
                Optional<Long> v4 = Ipv4.parse(p);
                if (v4.isEmpty() || n + 2 > 8) {
                    return -1;
                }
                out[n++] = (int) ((v4.get() >> 16) & 0xFFFF);
                out[n++] = (int) (v4.get() & 0xFFFF);
                continue;
            }
            if (p.isEmpty() || p.length() > 4 || n >= 8) {
                return -1;
            }
            int v = 0;
            for (int k = 0; k < p.length(); k++) {
                int d = Character.digit(p.charAt(k), 16);
                if (d < 0) {
                    return -1;
                }
                v = (v << 4) | d;
            }
            out[n++] = v;
        }
        return n - start;
    }
}
