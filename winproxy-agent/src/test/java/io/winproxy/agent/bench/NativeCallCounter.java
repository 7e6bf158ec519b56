package io.winproxy.agent.bench;

import io.winproxy.hns.NativeCallListener;
import java.util.Map;
import java.util.TreeMap;

/**
 * Counts the native calls an {@link io.winproxy.hns.HnsClient} reports to its {@link NativeCallListener}, by export
 * name. The benchmark's numbers come from the emulator's call journal; this is the cross-check that the client's own
 * report agrees (a client that does not implement the listener reports nothing).
 */
final class NativeCallCounter implements NativeCallListener {
    private final Map<String, Integer> counts = new TreeMap<>();

    @Override
    public synchronized void nativeCall(String function) {
        counts.merge(function, 1, Integer::sum);
    }

    synchronized void reset() {
        counts.clear();
    }

    synchronized Map<String, Integer> snapshot() {
        return Map.copyOf(counts);
    }

    synchronized int total() {
        return counts.values().stream().mapToInt(Integer::intValue).sum();
    }
}
