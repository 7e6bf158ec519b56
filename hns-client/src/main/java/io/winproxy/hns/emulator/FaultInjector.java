package io.winproxy.hns.emulator;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.OptionalInt;
import java.util.Random;
import java.util.Set;

/**
 * Decides which emulated calls fail with an injected HRESULT: the next N calls of a kind (optionally of one object
 * kind), and/or a seeded random fraction of calls. Scripted failures are consumed in the order they were added; the
 * random ones are reproducible for a given seed and call sequence. Thread-safe.
 */
public final class FaultInjector {
    private final List<Scripted> scripted = new ArrayList<>();
    private Random random;
    private double fraction;
    private int randomHresult;
    private Set<HnsCall> randomCalls = EnumSet.noneOf(HnsCall.class);

    /**
     * Fails the next {@code count} calls of kind {@code call} on {@code kind} (null: any object kind) with
     * {@code hresult}.
     */
    public synchronized FaultInjector failNext(HnsCall call, HnsObjectKind kind, int count, int hresult) {
        if (count <= 0) {
            throw new IllegalArgumentException("fault count must be positive: " + count);
        }
        scripted.add(new Scripted(call, kind, count, hresult));
        return this;
    }

    /**
     * Fails a {@code fraction} (0..1) of the calls whose kind is in {@code calls} (every kind but CLOSE when empty)
     * with {@code hresult}, drawn from a generator seeded with {@code seed}.
     */
    public synchronized FaultInjector failRandomly(double fraction, long seed, int hresult, Set<HnsCall> calls) {
        if (fraction < 0 || fraction > 1) {
            throw new IllegalArgumentException("fault fraction must be between 0 and 1: " + fraction);
        }
        this.fraction = fraction;
        this.random = new Random(seed);
        this.randomHresult = hresult;
        this.randomCalls = calls == null || calls.isEmpty()
                ? EnumSet.complementOf(EnumSet.of(HnsCall.CLOSE)) : EnumSet.copyOf(calls);
        return this;
    }

    /** Removes every scripted and random fault. */
    public synchronized void clear() {
        scripted.clear();
        random = null;
        fraction = 0;
    }

    /** The HRESULT this call must fail with, if any; consumes one scripted fault. */
    synchronized OptionalInt check(HnsCall call, HnsObjectKind kind) {
        Iterator<Scripted> it = scripted.iterator();
        while (it.hasNext()) {
            Scripted s = it.next();
            if (s.call == call && (s.kind == null || s.kind == kind)) {
                s.remaining--;
                if (s.remaining == 0) {
                    it.remove();
                }
                return OptionalInt.of(s.hresult);
            }
        }
        if (random != null && randomCalls.contains(call) && random.nextDouble() < fraction) {
            return OptionalInt.of(randomHresult);
        }
        return OptionalInt.empty();
    }

    private static final class Scripted {
        final HnsCall call;
        final HnsObjectKind kind;
        final int hresult;
        int remaining;

        Scripted(HnsCall call, HnsObjectKind kind, int count, int hresult) {
            this.call = call;
            this.kind = kind;
            this.remaining = count;
            this.hresult = hresult;
        }
    }
}
