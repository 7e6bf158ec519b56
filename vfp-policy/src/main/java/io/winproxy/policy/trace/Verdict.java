package io.winproxy.policy.trace;

/** What HNS/VFP does with a traced packet; {@link #jsonName()} is the {@code trace -o json} value. */
public enum Verdict {
    /** A load balancer matched and has at least one reachable backend. */
    FORWARDED("forwarded"),
    /** A load balancer matched but none of its backends exists: the packet goes nowhere. */
    DROPPED("dropped"),
    /** No load balancer matches: the packet is not load-balanced (routed as is). */
    NO_POLICY("no-policy");

    private final String jsonName;

    Verdict(String jsonName) {
        this.jsonName = jsonName;
    }

    public String jsonName() {
        return jsonName;
    }
}
