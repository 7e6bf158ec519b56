package io.winproxy.agent.bench;

/**
 * One call-count target of a scenario: {@code actual <= limit}, with what the limit is made of ({@code rule}, e.g.
 * "3 x 1,234 created + 10").
 */
record Target(String what, long actual, long limit, String rule) {

    boolean pass() {
        return actual <= limit;
    }

    /** {@code PASS native calls 1,234 <= 3,712 (3 x 1,234 created + 10)}. */
    String line() {
        return String.format(java.util.Locale.ROOT, "%s %s %,d <= %,d (%s)", pass() ? "PASS" : "FAIL", what, actual,
                limit, rule);
    }
}
