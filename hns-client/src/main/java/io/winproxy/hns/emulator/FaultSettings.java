package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.winproxy.hns.HResults;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;

/**
 * The faults of an emulated host, as the state file keeps them (so that a separate process, {@code hns fault ...},
 * can set them for the process that uses the host): scripted failures of the next N calls of a kind, a seeded random
 * fraction of failing calls, per-call latency, and an outage window during which every call fails (an HNS restart).
 * An immutable value; the {@code with...} methods return changed copies.
 *
 * @param failNext       scripted failures, consumed in order
 * @param random         random failures, or null
 * @param latencyMillis  latency of every native call (ms), unless {@code latencyByCall} names the call's kind
 * @param latencyByCall  latency (ms) per call kind
 * @param outageUntil    epoch milliseconds until which every call fails with {@code outageHresult}; 0: no outage
 * @param outageHresult  the HRESULT of calls during the outage
 * @param maxDestinations the most backends (destinations) one load balancer may have; null: the profile's
 *                        ({@link HnsLimits#maxDestinations})
 * @param portPool       the size of the node's dynamic port pool that non-DSR load balancers reserve ranges from,
 *                       in ports; null: unlimited (the default, see {@link HnsLimits})
 */
public record FaultSettings(@JsonProperty("FailNext") List<Scripted> failNext,
                            @JsonProperty("Random") RandomFaults random,
                            @JsonProperty("LatencyMillis") long latencyMillis,
                            @JsonProperty("LatencyByCallMillis") Map<HnsCall, Long> latencyByCall,
                            @JsonProperty("OutageUntil") long outageUntil,
                            @JsonProperty("OutageHResult") int outageHresult,
                            @JsonProperty("MaxDestinations") Integer maxDestinations,
                            @JsonProperty("PortPool") Integer portPool) {

    /** The HRESULT injected when none is named: the HNS RPC endpoint went away. */
    public static final int DEFAULT_HRESULT = HResults.RPC_S_SERVER_UNAVAILABLE;

    public static final FaultSettings NONE = new FaultSettings(List.of(), null, 0, Map.of(), 0, 0, null, null);

    public FaultSettings {
        failNext = failNext == null ? List.of() : List.copyOf(failNext);
        latencyByCall = latencyByCall == null ? Map.of() : Map.copyOf(latencyByCall);
        if (latencyMillis < 0 || latencyByCall.values().stream().anyMatch(v -> v == null || v < 0)) {
            throw new IllegalArgumentException("latency must not be negative");
        }
        if (maxDestinations != null && maxDestinations < 1) {
            throw new IllegalArgumentException("the destination limit must be positive: " + maxDestinations);
        }
        if (portPool != null && portPool < 0) {
            throw new IllegalArgumentException("the port pool must not be negative: " + portPool);
        }
    }

    /**
     * The next {@code remaining} calls of kind {@code call} on {@code object} (null: any object kind) fail with
     * {@code hresult}.
     */
    public record Scripted(@JsonProperty("Call") HnsCall call, @JsonProperty("Object") HnsObjectKind object,
                           @JsonProperty("Remaining") int remaining, @JsonProperty("HResult") int hresult) {
        public Scripted {
            if (call == null) {
                throw new IllegalArgumentException("a scripted fault needs a call kind");
            }
            if (remaining <= 0) {
                throw new IllegalArgumentException("fault count must be positive: " + remaining);
            }
        }

        boolean matches(HnsCall c, HnsObjectKind kind) {
            return call == c && (object == null || object == kind);
        }
    }

    /**
     * A {@code fraction} (0..1) of the calls whose kind is in {@code calls} fail with {@code hresult}, drawn from a
     * generator seeded with {@code seed} (each process that uses the host draws its own reproducible sequence).
     */
    public record RandomFaults(@JsonProperty("Fraction") double fraction, @JsonProperty("Seed") long seed,
                               @JsonProperty("HResult") int hresult, @JsonProperty("Calls") Set<HnsCall> calls) {
        public RandomFaults {
            if (!(fraction >= 0 && fraction <= 1)) {
                throw new IllegalArgumentException("fault fraction must be between 0 and 1: " + fraction);
            }
            calls = calls == null || calls.isEmpty() ? EnumSet.complementOf(EnumSet.of(HnsCall.CLOSE))
                    : EnumSet.copyOf(calls);
            calls = Set.copyOf(calls);
        }
    }

    public FaultSettings withScripted(Scripted s) {
        List<Scripted> list = new ArrayList<>(failNext);
        list.add(s);
        return new FaultSettings(list, random, latencyMillis, latencyByCall, outageUntil, outageHresult,
                maxDestinations, portPool);
    }

    public FaultSettings withFailNext(List<Scripted> list) {
        return new FaultSettings(list, random, latencyMillis, latencyByCall, outageUntil, outageHresult,
                maxDestinations, portPool);
    }

    /** Random faults as given; null removes them. */
    public FaultSettings withRandom(RandomFaults r) {
        return new FaultSettings(failNext, r, latencyMillis, latencyByCall, outageUntil, outageHresult,
                maxDestinations, portPool);
    }

    /** The latency of every call whose kind has no latency of its own. */
    public FaultSettings withLatency(Duration perCall) {
        return new FaultSettings(failNext, random, perCall.toMillis(), latencyByCall, outageUntil, outageHresult,
                maxDestinations, portPool);
    }

    /** The latency of one call kind. */
    public FaultSettings withLatency(HnsCall call, Duration perCall) {
        Map<HnsCall, Long> map = new EnumMap<>(HnsCall.class);
        map.putAll(latencyByCall);
        map.put(call, perCall.toMillis());
        return new FaultSettings(failNext, random, latencyMillis, map, outageUntil, outageHresult,
                maxDestinations, portPool);
    }

    /** Every call fails with {@code hresult} until {@code until}. */
    public FaultSettings withOutage(Instant until, int hresult) {
        return new FaultSettings(failNext, random, latencyMillis, latencyByCall, until.toEpochMilli(), hresult,
                maxDestinations, portPool);
    }

    /** The destination limit per load balancer; null: the profile's. */
    public FaultSettings withMaxDestinations(Integer limit) {
        return new FaultSettings(failNext, random, latencyMillis, latencyByCall, outageUntil, outageHresult, limit,
                portPool);
    }

    /** The size of the dynamic port pool, in ports; null: unlimited. */
    public FaultSettings withPortPool(Integer ports) {
        return new FaultSettings(failNext, random, latencyMillis, latencyByCall, outageUntil, outageHresult,
                maxDestinations, ports);
    }

    /** The latency of a call of this kind. */
    public Duration latency(HnsCall call) {
        Long ms = latencyByCall.get(call);
        return Duration.ofMillis(ms != null ? ms : latencyMillis);
    }

    /** Whether the outage window is open at {@code now}. */
    public boolean inOutage(Instant now) {
        return outageUntil > 0 && now.toEpochMilli() < outageUntil;
    }

    /** True when no fault, latency or outage is set (an expired outage counts as none). */
    public boolean isNone(Instant now) {
        return failNext.isEmpty() && random == null && latencyMillis == 0 && latencyByCall.isEmpty()
                && !inOutage(now) && maxDestinations == null && portPool == null;
    }

    /** One line per setting, for {@code hns fault show}; "no faults" when none. */
    public List<String> describe(Instant now) {
        List<String> lines = new ArrayList<>();
        if (inOutage(now)) {
            lines.add("outage: every call fails with " + HResults.describe(outageHresult) + " for another "
                    + (outageUntil - now.toEpochMilli()) + " ms");
        }
        if (random != null) {
            StringJoiner calls = new StringJoiner(",");
            EnumSet.copyOf(random.calls()).forEach(c -> calls.add(c.name().toLowerCase(Locale.ROOT)));
            lines.add(String.format(Locale.ROOT, "random: %.4g of %s calls fail with %s (seed %d)",
                    random.fraction(), calls, HResults.describe(random.hresult()), random.seed()));
        }
        for (Scripted s : failNext) {
            lines.add("fail-next: " + s.remaining() + " x " + (s.object() == null ? "any "
                    : s.object().name().toLowerCase(Locale.ROOT).replace('_', '-') + " ")
                    + s.call().name().toLowerCase(Locale.ROOT) + " with " + HResults.describe(s.hresult()));
        }
        if (latencyMillis > 0) {
            lines.add("latency: " + latencyMillis + " ms per call");
        }
        new TreeMap<>(latencyByCall).forEach((call, ms) ->
                lines.add("latency: " + ms + " ms per " + call.name().toLowerCase(Locale.ROOT) + " call"));
        if (maxDestinations != null) {
            lines.add("limit: " + maxDestinations + " destinations per load balancer");
        }
        if (portPool != null) {
            lines.add("port pool: " + portPool + " dynamic ports (" + HnsLimits.PORTS_PER_LOAD_BALANCER
                    + " per non-DSR load balancer)");
        }
        if (lines.isEmpty()) {
            lines.add("no faults");
        }
        return lines;
    }
}
