package io.winproxy.agent.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;

/**
 * Go's {@code time.Duration} text syntax, as used by kube-proxy flags and by {@code metav1.Duration} fields of the
 * configuration file: {@code 30s}, {@code 1m0s}, {@code 1.5h}, {@code 500ms}, {@code -1s}, {@code 0}.
 * {@link #format(Duration)} produces exactly what Go's {@code Duration.String()} prints, so a written file reads
 * back to the same value. Stateless; thread-safe.
 */
public final class GoDuration {
    private static final Map<String, Long> UNIT_NANOS = Map.of(
            "ns", 1L, "us", 1_000L, "\u00b5s", 1_000L, "\u03bcs", 1_000L, "ms", 1_000_000L,
            "s", 1_000_000_000L, "m", 60_000_000_000L, "h", 3_600_000_000_000L);

    private GoDuration() {
    }

    /**
     * Parses a Go duration.
     *
     * @throws IllegalArgumentException with Go's wording ({@code time: invalid duration "abc"}) when the text is
     *                                  not a duration
     */
    public static Duration parse(String text) {
        String s = text == null ? "" : text.trim();
        String original = s;
        boolean negative = false;
        if (s.startsWith("-") || s.startsWith("+")) {
            negative = s.charAt(0) == '-';
            s = s.substring(1);
        }
        if (s.equals("0")) {
            return Duration.ZERO;
        }
        if (s.isEmpty()) {
            throw invalid(original);
        }
        BigDecimal totalNanos = BigDecimal.ZERO;
        int i = 0;
        while (i < s.length()) {
            int start = i;
            while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
                i++;
            }
            String number = s.substring(start, i);
            if (number.isEmpty() || number.equals(".") || number.indexOf('.') != number.lastIndexOf('.')) {
                throw invalid(original);
            }
            int unitStart = i;
            while (i < s.length() && !Character.isDigit(s.charAt(i)) && s.charAt(i) != '.') {
                i++;
            }
            String unit = s.substring(unitStart, i);
            if (unit.isEmpty()) {
                throw new IllegalArgumentException("time: missing unit in duration \"" + original + "\"");
            }
            Long nanos = UNIT_NANOS.get(unit);
            if (nanos == null) {
                throw new IllegalArgumentException(
                        "time: unknown unit \"" + unit + "\" in duration \"" + original + "\"");
            }
            totalNanos = totalNanos.add(new BigDecimal(number).multiply(BigDecimal.valueOf(nanos)));
        }
        long nanos;
        try {
            nanos = totalNanos.setScale(0, java.math.RoundingMode.DOWN).longValueExact();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("time: invalid duration \"" + original + "\"");
        }
        return Duration.ofNanos(negative ? -nanos : nanos);
    }

    private static IllegalArgumentException invalid(String text) {
        return new IllegalArgumentException("time: invalid duration \"" + text + "\"");
    }

    /** Formats like Go's {@code Duration.String()}: {@code 0s}, {@code 500ms}, {@code 1m0s}, {@code 1h30m0s}. */
    public static String format(Duration duration) {
        long nanos = duration.toNanos();
        if (nanos == 0) {
            return "0s";
        }
        StringBuilder out = new StringBuilder();
        if (nanos < 0) {
            out.append('-');
            nanos = -nanos;
        }
        if (nanos < 1_000_000_000L) {
            if (nanos < 1_000L) {
                return out.append(nanos).append("ns").toString();
            }
            if (nanos < 1_000_000L) {
                return out.append(fraction(nanos, 1_000L)).append("\u00b5s").toString();
            }
            return out.append(fraction(nanos, 1_000_000L)).append("ms").toString();
        }
        long hours = nanos / 3_600_000_000_000L;
        long rest = nanos % 3_600_000_000_000L;
        long minutes = rest / 60_000_000_000L;
        long secondNanos = rest % 60_000_000_000L;
        if (hours > 0) {
            out.append(hours).append('h');
        }
        if (hours > 0 || minutes > 0) {
            out.append(minutes).append('m');
        }
        return out.append(fraction(secondNanos, 1_000_000_000L)).append('s').toString();
    }

    private static String fraction(long value, long unit) {
        BigDecimal d = BigDecimal.valueOf(value).divide(BigDecimal.valueOf(unit)).stripTrailingZeros();
        return d.scale() < 0 ? d.setScale(0).toPlainString() : d.toPlainString();
    }
}
