package io.winproxy.hns.emulator;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A multiset of IPv4 addresses (two endpoints may share one) that answers "the lowest address not in the set at or
 * above x" in O(log n): the distinct addresses are kept as maximal runs {@code [start, end]}, so the first free
 * address after a used one is the end of its run plus one.
 */
final class AddressSet {
    private final Map<Long, Integer> counts = new HashMap<>();
    /** Maximal runs of used addresses: start -> end (inclusive); runs never touch or overlap. */
    private final TreeMap<Long, Long> runs = new TreeMap<>();

    void add(long a) {
        if (counts.merge(a, 1, Integer::sum) > 1) {
            return;
        }
        Map.Entry<Long, Long> left = runs.floorEntry(a - 1);
        boolean joinsLeft = left != null && left.getValue() == a - 1;
        Long rightEnd = runs.get(a + 1);
        if (joinsLeft && rightEnd != null) {
            runs.remove(a + 1);
            runs.put(left.getKey(), rightEnd);
        } else if (joinsLeft) {
            runs.put(left.getKey(), a);
        } else if (rightEnd != null) {
            runs.remove(a + 1);
            runs.put(a, rightEnd);
        } else {
            runs.put(a, a);
        }
    }

    void remove(long a) {
        Integer n = counts.get(a);
        if (n == null) {
            return;
        }
        if (n > 1) {
            counts.put(a, n - 1);
            return;
        }
        counts.remove(a);
        Map.Entry<Long, Long> run = runs.floorEntry(a);
        long start = run.getKey();
        long end = run.getValue();
        runs.remove(start);
        if (start < a) {
            runs.put(start, a - 1);
        }
        if (a < end) {
            runs.put(a + 1, end);
        }
    }

    boolean contains(long a) {
        return counts.containsKey(a);
    }

    boolean isEmpty() {
        return counts.isEmpty();
    }

    /** The lowest address at or above {@code from} that is not in the set. */
    long lowestFreeFrom(long from) {
        Map.Entry<Long, Long> run = runs.floorEntry(from);
        return run != null && run.getValue() >= from ? run.getValue() + 1 : from;
    }
}
