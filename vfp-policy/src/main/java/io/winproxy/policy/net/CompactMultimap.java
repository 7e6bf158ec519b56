package io.winproxy.policy.net;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A multimap that stores a key with one value as that value alone and only a key with several as a list: at
 * 100,000 IPs, almost all with one endpoint or one load balancer, a list per key would cost megabytes. Values of a
 * key are distinct and kept in the order added (see {@link #replace} for a change in place). Not thread-safe.
 */
public final class CompactMultimap<K, V> {
    /** Per key: a {@code V} or, for several values, an {@code ArrayList<V>} (V must not be a List). */
    private final Map<K, Object> entries = new OpenHashMap<>();

    /** Adds {@code value} to {@code key} unless it is there already. */
    public void add(K key, V value) {
        Object current = entries.get(key);
        if (current == null) {
            entries.put(key, value);
        } else if (current instanceof List<?>) {
            List<V> list = list(current);
            if (!list.contains(value)) {
                list.add(value);
            }
        } else if (!current.equals(value)) {
            List<Object> list = new ArrayList<>(2);
            list.add(current);
            list.add(value);
            entries.put(key, list);
        }
    }

    /** Removes the values of {@code key} that {@code which} accepts. */
    public void removeIf(K key, Predicate<? super V> which) {
        Object current = entries.get(key);
        if (current == null) {
            return;
        }
        if (current instanceof List<?>) {
            List<V> list = list(current);
            list.removeIf(which);
            if (list.isEmpty()) {
                entries.remove(key);
            } else if (list.size() == 1) {
                entries.put(key, list.get(0));
            }
        } else {
            V single = value(current);
            if (which.test(single)) {
                entries.remove(key);
            }
        }
    }

    /** The values of {@code key}, in the order added (empty when none); a read-only view. */
    public List<V> get(K key) {
        Object current = entries.get(key);
        if (current == null) {
            return List.of();
        }
        if (current instanceof List<?>) {
            return Collections.unmodifiableList(list(current));
        }
        V single = value(current);
        return List.of(single);
    }

    /**
     * Puts {@code value} where the value of {@code key} that {@code which} accepts stands, keeping its place in the
     * order; adds it at the end when none does.
     */
    public void replace(K key, Predicate<? super V> which, V value) {
        Object current = entries.get(key);
        if (current instanceof List<?>) {
            List<V> list = list(current);
            for (int i = 0; i < list.size(); i++) {
                if (which.test(list.get(i))) {
                    list.set(i, value);
                    return;
                }
            }
        } else if (current != null && which.test(value(current))) {
            entries.put(key, value);
            return;
        }
        add(key, value);
    }

    /** How many keys have a value. */
    public int keyCount() {
        return entries.size();
    }

    public void clear() {
        entries.clear();
    }

    @SuppressWarnings("unchecked")
    private static <V> List<V> list(Object o) {
        return (List<V>) o;
    }

    @SuppressWarnings("unchecked")
    private static <V> V value(Object o) {
        return (V) o;
    }
}
