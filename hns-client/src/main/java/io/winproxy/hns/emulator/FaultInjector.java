package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Decides which emulated calls fail with an injected HRESULT and how long each call takes, from the host's
 * {@link FaultSettings}: an outage window (every call fails), the next N calls of a kind (optionally of one object
 * kind), and/or a seeded random fraction of calls; latency per call kind or for all calls.
 *
 * <p>The settings belong to the host: with a state file they are persisted there, so a fault set by another process
 * ({@code hns fault set}) applies to this one from its next call, and a scripted fault is consumed once across all
 * processes. Scripted failures are consumed in the order they were added. The random ones are drawn from a generator
 * local to this process, seeded with the settings' seed (reseeded whenever the random settings change): reproducible
 * for a given seed and call sequence. Thread-safe.
 */
public final class FaultInjector {
    /**
     * Access to the host's settings, inside the emulator's lock: {@code updater} applies a change to the settings
     * under the host's lock (and persists it), {@code current} reads them (inside the lock), {@code clock} is the
     * host's wall clock.
     */
    record Host(Consumer<UnaryOperator<FaultSettings>> updater, Supplier<FaultSettings> current, Clock clock) {
        void update(UnaryOperator<FaultSettings> change) {
            updater.accept(change);
        }

        FaultSettings settings() {
            return current.get();
        }

        Instant now() {
            return clock.instant();
        }
    }

    private final Host host;
    private FaultSettings.RandomFaults seededFor;
    private Random random;

    FaultInjector(Host host) {
        this.host = host;
    }

    /**
     * Fails the next {@code count} calls of kind {@code call} on {@code kind} (null: any object kind) with
     * {@code hresult}.
     */
    public FaultInjector failNext(HnsCall call, HnsObjectKind kind, int count, int hresult) {
        FaultSettings.Scripted s = new FaultSettings.Scripted(call, kind, count, hresult);
        host.update(f -> f.withScripted(s));
        return this;
    }

    /**
     * Fails a {@code fraction} (0..1) of the calls whose kind is in {@code calls} (every kind but CLOSE when empty)
     * with {@code hresult}, drawn from a generator seeded with {@code seed}.
     */
    public FaultInjector failRandomly(double fraction, long seed, int hresult, Set<HnsCall> calls) {
        FaultSettings.RandomFaults r = new FaultSettings.RandomFaults(fraction, seed, hresult, calls);
        synchronized (this) {
            seededFor = null; // a new request restarts the sequence even with the same settings
        }
        host.update(f -> f.withRandom(r));
        return this;
    }

    /** Every call fails with {@code hresult} for {@code duration} from now (HNS stopped or restarting). */
    public FaultInjector outage(Duration duration, int hresult) {
        Instant until = host.now().plus(duration);
        host.update(f -> f.withOutage(until, hresult));
        return this;
    }

    /** The latency of every native call whose kind has none of its own. */
    public FaultInjector latency(Duration perCall) {
        host.update(f -> f.withLatency(perCall == null ? Duration.ZERO : perCall));
        return this;
    }

    /** The latency of every native call of one kind. */
    public FaultInjector latency(HnsCall call, Duration perCall) {
        host.update(f -> f.withLatency(call, perCall == null ? Duration.ZERO : perCall));
        return this;
    }

    /** Replaces every setting. */
    public void set(FaultSettings settings) {
        host.update(f -> settings == null ? FaultSettings.NONE : settings);
    }

    /** Removes every scripted and random fault, the outage and the latency. */
    public void clear() {
        host.update(f -> FaultSettings.NONE);
    }

    /** The settings in effect (with a state file: as last persisted by any process). */
    public FaultSettings settings() {
        FaultSettings[] out = new FaultSettings[1];
        host.update(f -> {
            out[0] = f;
            return f;
        });
        return out[0];
    }

    /** How long a call of this kind takes. Call inside the host's lock. */
    Duration latency(HnsCall call) {
        return host.settings().latency(call);
    }

    /**
     * The HRESULT this call must fail with, if any; consumes one scripted fault (a change of the settings). Call
     * inside the host's lock.
     */
    OptionalInt check(HnsCall call, HnsObjectKind kind) {
        FaultSettings f = host.settings();
        if (f.inOutage(host.now())) {
            return OptionalInt.of(f.outageHresult() == 0 ? HResults.ERROR_SERVICE_NOT_ACTIVE : f.outageHresult());
        }
        List<FaultSettings.Scripted> scripted = f.failNext();
        for (int i = 0; i < scripted.size(); i++) {
            FaultSettings.Scripted s = scripted.get(i);
            if (s.matches(call, kind)) {
                List<FaultSettings.Scripted> rest = new ArrayList<>(scripted);
                if (s.remaining() == 1) {
                    rest.remove(i);
                } else {
                    rest.set(i, new FaultSettings.Scripted(s.call(), s.object(), s.remaining() - 1, s.hresult()));
                }
                host.update(x -> x.withFailNext(rest));
                return OptionalInt.of(s.hresult());
            }
        }
        FaultSettings.RandomFaults r = f.random();
        if (r != null && r.calls().contains(call) && draw(r) < r.fraction()) {
            return OptionalInt.of(r.hresult());
        }
        return OptionalInt.empty();
    }

    private synchronized double draw(FaultSettings.RandomFaults r) {
        if (!r.equals(seededFor)) {
            seededFor = r;
            random = new Random(r.seed());
        }
        return random.nextDouble();
    }
}
