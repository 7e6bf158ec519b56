package io.winproxy.policy.net;

import java.util.AbstractCollection;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.Collection;
import java.util.ConcurrentModificationException;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;

/**
 * A hash map for the agent's maps of 100,000 entries whose order nobody walks (the desired state's and the planner's
 * indexes by IP): keys and values in two arrays with linear probing, no object per entry. A
 * {@link java.util.HashMap} spends a 32-byte node and a table slot per entry, about 42 bytes at 100,000 entries; this
 * one 11 to 21 bytes (two array slots at a load between 0.375 and 0.75). Where the order matters for speed (a walk
 * over every entry after each change), keep insertion order instead: see the ownership journal.
 *
 * <p>Neither keys nor values may be null. Iteration order is unspecified. The views' iterators do not support
 * {@code remove} (removal moves entries between slots); remove through the map. Not thread-safe.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class OpenHashMap<K, V> extends AbstractMap<K, V> {
    private static final int MIN_CAPACITY = 16;
    private Object[] keys = new Object[MIN_CAPACITY];
    private Object[] values = new Object[MIN_CAPACITY];
    private int size;
    private int modifications;

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean containsKey(Object key) {
        return key != null && keys[slot(key)] != null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        return key == null ? null : (V) values[slot(key)];
    }

    @Override
    @SuppressWarnings("unchecked")
    public V put(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        int i = slot(key);
        Object old = values[i];
        if (keys[i] == null) {
            keys[i] = key;
            values[i] = value;
            size++;
            modifications++;
            if (size * 4 > keys.length * 3) {
                resize(keys.length * 2);
            }
            return null;
        }
        values[i] = value;
        return (V) old;
    }

    @Override
    @SuppressWarnings("unchecked")
    public V remove(Object key) {
        if (key == null) {
            return null;
        }
        int i = slot(key);
        if (keys[i] == null) {
            return null;
        }
        Object old = values[i];
        delete(i);
        return (V) old;
    }

    @Override
    public void clear() {
        Arrays.fill(keys, null);
        Arrays.fill(values, null);
        size = 0;
        modifications++;
    }

    @Override
    @SuppressWarnings("unchecked")
    public void forEach(BiConsumer<? super K, ? super V> action) {
        int expected = modifications;
        for (int i = 0; i < keys.length; i++) {
            if (keys[i] != null) {
                action.accept((K) keys[i], (V) values[i]);
                if (modifications != expected) {
                    throw new ConcurrentModificationException();
                }
            }
        }
    }

    @Override
    public Set<Map.Entry<K, V>> entrySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<Map.Entry<K, V>> iterator() {
                return slots(Entry::new);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public Set<K> keySet() {
        return new AbstractSet<>() {
            @Override
            public Iterator<K> iterator() {
                return slots(i -> (K) keys[i]);
            }

            @Override
            public boolean contains(Object o) {
                return containsKey(o);
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    @Override
    @SuppressWarnings("unchecked")
    public Collection<V> values() {
        return new AbstractCollection<>() {
            @Override
            public Iterator<V> iterator() {
                return slots(i -> (V) values[i]);
            }

            /** A straight copy of the occupied slots (what {@code ArrayList.addAll} and {@code List.copyOf} call). */
            @Override
            public Object[] toArray() {
                Object[] out = new Object[size];
                int n = 0;
                for (int i = 0; i < keys.length; i++) {
                    if (keys[i] != null) {
                        out[n++] = values[i];
                    }
                }
                return out;
            }

            @Override
            public int size() {
                return size;
            }
        };
    }

    /** The slot holding {@code key}, or the empty slot where it would go. */
    private int slot(Object key) {
        int mask = keys.length - 1;
        int i = index(key.hashCode(), mask);
        while (keys[i] != null && !keys[i].equals(key)) {
            i = (i + 1) & mask;
        }
        return i;
    }

    /** Spreads a hash over the table (Fibonacci hashing), so that String hashes of similar IPs do not cluster. */
    private static int index(int hash, int mask) {
        return (hash * 0x9E3779B9 >>> 7 ^ hash * 0x9E3779B9) & mask;
    }

    /** Empties slot {@code i} and moves back the entries of its probe run that no longer reach their slot. */
    private void delete(int i) {
        int mask = keys.length - 1;
        int hole = i;
        int j = i;
        while (true) {
            j = (j + 1) & mask;
            if (keys[j] == null) {
                break;
            }
            int home = index(keys[j].hashCode(), mask);
            // The entry at j may fill the hole if its home is not in the run (hole, j].
            boolean reachable = hole <= j ? home > hole && home <= j : home > hole || home <= j;
            if (!reachable) {
                keys[hole] = keys[j];
                values[hole] = values[j];
                hole = j;
            }
        }
        keys[hole] = null;
        values[hole] = null;
        size--;
        modifications++;
    }

    private void resize(int capacity) {
        Object[] oldKeys = keys;
        Object[] oldValues = values;
        keys = new Object[capacity];
        values = new Object[capacity];
        int mask = capacity - 1;
        for (int k = 0; k < oldKeys.length; k++) {
            if (oldKeys[k] != null) {
                int i = index(oldKeys[k].hashCode(), mask);
                while (keys[i] != null) {
                    i = (i + 1) & mask;
                }
                keys[i] = oldKeys[k];
                values[i] = oldValues[k];
            }
        }
    }

    /** An iterator over the occupied slots, each made into what {@code at} makes of it. */
    private <T> Iterator<T> slots(IntFunction<T> at) {
        return new Iterator<>() {
            private final int expected = modifications;
            private int next = advance(0);

            @Override
            public boolean hasNext() {
                return next < keys.length;
            }

            @Override
            public T next() {
                if (modifications != expected) {
                    throw new ConcurrentModificationException();
                }
                if (next >= keys.length) {
                    throw new NoSuchElementException();
                }
                T out = at.apply(next);
                next = advance(next + 1);
                return out;
            }
        };
    }

    /** The first occupied slot from {@code from} on, or the table's length. */
    private int advance(int from) {
        int i = from;
        while (i < keys.length && keys[i] == null) {
            i++;
        }
        return i;
    }

    /** An entry of the map at a slot; {@link #setValue} writes through. */
    private final class Entry implements Map.Entry<K, V> {
        private final int slot;
        private final K key;

        @SuppressWarnings("unchecked")
        Entry(int slot) {
            this.slot = slot;
            this.key = (K) keys[slot];
        }

        @Override
        public K getKey() {
            return key;
        }

        @Override
        @SuppressWarnings("unchecked")
        public V getValue() {
            return (V) values[slot];
        }

        @Override
        public V setValue(V value) {
            V old = getValue();
            values[slot] = Objects.requireNonNull(value, "value");
            return old;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Map.Entry<?, ?> e && key.equals(e.getKey()) && getValue().equals(e.getValue());
        }

        @Override
        public int hashCode() {
            return key.hashCode() ^ getValue().hashCode();
        }

        @Override
        public String toString() {
            return key + "=" + getValue();
        }
    }
}
