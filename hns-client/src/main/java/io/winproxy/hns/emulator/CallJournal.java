package io.winproxy.hns.emulator;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the native-level HCN calls an emulator served, by call kind and object kind, exactly as the real binding
 * makes them (a list of N load balancers is 1 enumerate + N x (open, query, close)). Failed calls count too (they
 * reached HNS); {@link #failures()} counts them separately. Thread-safe; counts are per emulator instance and are
 * not persisted with the state file.
 */
public final class CallJournal {
    private final Map<HnsObjectKind, Map<HnsCall, Integer>> counts = new EnumMap<>(HnsObjectKind.class);
    private final Map<Integer, Integer> failuresByHresult = new TreeMap<>();
    private int failures;

    synchronized void record(HnsCall call, HnsObjectKind kind) {
        counts.computeIfAbsent(kind, k -> new EnumMap<>(HnsCall.class)).merge(call, 1, Integer::sum);
    }

    synchronized void recordFailure(int hresult) {
        failures++;
        failuresByHresult.merge(hresult, 1, Integer::sum);
    }

    /** Forgets every count. */
    public synchronized void reset() {
        counts.clear();
        failuresByHresult.clear();
        failures = 0;
    }

    public synchronized int count(HnsCall call, HnsObjectKind kind) {
        return counts.getOrDefault(kind, Map.of()).getOrDefault(call, 0);
    }

    /** Calls of one kind over every object kind. */
    public synchronized int count(HnsCall call) {
        int n = 0;
        for (HnsObjectKind kind : HnsObjectKind.values()) {
            n += count(call, kind);
        }
        return n;
    }

    /** Every call on one object kind. */
    public synchronized int count(HnsObjectKind kind) {
        return counts.getOrDefault(kind, Map.of()).values().stream().mapToInt(Integer::intValue).sum();
    }

    public synchronized int total() {
        int n = 0;
        for (HnsObjectKind kind : HnsObjectKind.values()) {
            n += count(kind);
        }
        return n;
    }

    /** Create + modify + delete calls over every object kind ("zero writes" means nothing changed). */
    public synchronized int writes() {
        return count(HnsCall.CREATE) + count(HnsCall.MODIFY) + count(HnsCall.DELETE);
    }

    /** Create + modify + delete calls on one object kind. */
    public synchronized int writes(HnsObjectKind kind) {
        return count(HnsCall.CREATE, kind) + count(HnsCall.MODIFY, kind) + count(HnsCall.DELETE, kind);
    }

    /** Calls that returned a failure HRESULT (rule violations and injected faults). */
    public synchronized int failures() {
        return failures;
    }

    /** Failed calls by HRESULT. */
    public synchronized Map<Integer, Integer> failuresByHresult() {
        return Map.copyOf(failuresByHresult);
    }

    /** Non-zero counts keyed by export name ({@code HcnCreateLoadBalancer} -> 3), in a stable order. */
    public synchronized Map<String, Integer> snapshot() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (HnsObjectKind kind : HnsObjectKind.values()) {
            for (HnsCall call : HnsCall.values()) {
                int n = count(call, kind);
                if (n > 0) {
                    out.put(kind.exportName(call), n);
                }
            }
        }
        return out;
    }

    @Override
    public synchronized String toString() {
        StringBuilder sb = new StringBuilder();
        snapshot().forEach((k, v) -> sb.append(String.format(Locale.ROOT, "%s=%d ", k, v)));
        return sb.toString().trim();
    }
}
