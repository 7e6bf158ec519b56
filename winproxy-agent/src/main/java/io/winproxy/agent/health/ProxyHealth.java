package io.winproxy.agent.health;

import io.winproxy.policy.model.IpFamily;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * One evaluation of the proxier's health (upstream G-C {@code ProxyHealth}).
 *
 * @param lastUpdated the latest per-family update time; {@link #ZERO_TIME} when no family has ever been updated
 * @param currentTime the clock's time at evaluation
 * @param healthy     the proxier-only health: no family has an update queued for {@code healthTimeout} or longer
 * @param status      per family that has been updated at least once, sorted (IPv4 before IPv6)
 */
public record ProxyHealth(Instant lastUpdated, Instant currentTime, boolean healthy,
                          Map<IpFamily, FamilyHealth> status) {

    /** Go's zero {@code time.Time}, rendered as {@code 0001-01-01T00:00:00Z}. */
    public static final Instant ZERO_TIME = Instant.parse("0001-01-01T00:00:00Z");

    public ProxyHealth {
        EnumMap<IpFamily, FamilyHealth> copy = new EnumMap<>(IpFamily.class);
        copy.putAll(status);
        status = Collections.unmodifiableMap(copy);
    }

    /** The health of one IP family's proxier. */
    public record FamilyHealth(Instant lastUpdated, boolean healthy) {
    }
}
