package io.winproxy.hns.emulator;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A multimap from a key to object keys, in insertion order, that stores a key with one member as that member alone
 * (most IPs have one endpoint, most endpoints one or a few load balancers): at 100,000 objects a set per key would
 * cost tens of megabytes. Not thread-safe; {@link EmulatorStore} serializes access.
 */
final class CompactMultimap<K> {
    /** Per key: a {@code String} (one member) or a {@code LinkedHashSet<String>} (several). */
    private final Map<K, Object> entries = new HashMap<>();

    void add(K key, String member) {
        Object current = entries.get(key);
        if (current == null) {
            entries.put(key, member);
        } else if (current instanceof String single) {
            if (!single.equals(member)) {
                LinkedHashSet<String> set = new LinkedHashSet<>(4);
                set.add(single);
                set.add(member);
                entries.put(key, set);
            }
        } else {
            set(current).add(member);
        }
    }

    void remove(K key, String member) {
        Object current = entries.get(key);
        if (current instanceof String single) {
            if (single.equals(member)) {
                entries.remove(key);
            }
        } else if (current != null) {
            LinkedHashSet<String> set = set(current);
            set.remove(member);
            if (set.size() == 1) {
                entries.put(key, set.iterator().next());
            } else if (set.isEmpty()) {
                entries.remove(key);
            }
        }
    }

    /** The members of {@code key}, in the order they were added. */
    List<String> get(K key) {
        Object current = entries.get(key);
        if (current == null) {
            return List.of();
        }
        if (current instanceof String single) {
            return List.of(single);
        }
        return new ArrayList<>(set(current));
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    void clear() {
        entries.clear();
    }

    @SuppressWarnings("unchecked")
    private static LinkedHashSet<String> set(Object value) {
        return (LinkedHashSet<String>) value;
    }
}
