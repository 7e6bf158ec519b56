package io.winproxy.policy.model;

import java.util.Locale;
import java.util.Optional;

/** Service protocols. HNS programs TCP and UDP; SCTP is recognised so that it can be skipped with a warning. */
public enum Protocol {
    TCP(6), UDP(17), SCTP(132);

    private final int number;

    Protocol(int number) {
        this.number = number;
    }

    /** The IANA protocol number HNS uses in port mappings. */
    public int number() {
        return number;
    }

    public static Optional<Protocol> fromNumber(int number) {
        for (Protocol p : values()) {
            if (p.number == number) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** Parses a Kubernetes protocol name; {@code null} or empty means TCP, as the API server defaults it. */
    public static Optional<Protocol> parse(String name) {
        if (name == null || name.isEmpty()) {
            return Optional.of(TCP);
        }
        try {
            return Optional.of(valueOf(name.toUpperCase(Locale.ROOT)));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
