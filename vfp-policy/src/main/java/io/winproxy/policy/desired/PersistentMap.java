package io.winproxy.policy.desired;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * An immutable hash map that shares structure with the map it was derived from (a hash array mapped trie: 32-way
 * nodes indexed by five hash bits per level, entries with one full hash in a collision node). A lookup visits at most
 * seven nodes; changing one entry copies only the nodes on its path.
 *
 * <p>Maps are derived through an {@link Editor}, which changes the nodes it created itself in place and copies the
 * others: a batch of changes allocates little, and {@link Editor#snapshot()} is O(1). Every snapshot is immutable and
 * thread-safe; an editor is not thread-safe. Null keys and values are not allowed.
 */
final class PersistentMap<K, V> {
    private static final PersistentMap<Object, Object> EMPTY = new PersistentMap<>(null, 0);
    private static final int BITS = 5;
    private static final int MASK = (1 << BITS) - 1;

    private final Node root;
    private final int size;

    private PersistentMap(Node root, int size) {
        this.root = root;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <K, V> PersistentMap<K, V> empty() {
        return (PersistentMap<K, V>) EMPTY;
    }

    /** The value of {@code key}, or null. */
    @SuppressWarnings("unchecked")
    V get(Object key) {
        return root == null ? null : (V) root.find(hash(key), 0, key);
    }

    int size() {
        return size;
    }

    /** Visits every entry, in no particular order. */
    @SuppressWarnings("unchecked")
    void forEach(BiConsumer<? super K, ? super V> action) {
        if (root != null) {
            root.forEach((BiConsumer<Object, Object>) action);
        }
    }

    /** An editor that starts from this map. */
    Editor<K, V> editor() {
        return new Editor<>(root, size);
    }

    private static int hash(Object key) {
        int h = key.hashCode();
        return h ^ (h >>> 16);
    }

    /** A mutable map that starts from a snapshot and hands out snapshots of itself. Not thread-safe. */
    static final class Editor<K, V> {
        private Object owner = new Object();
        private Node root;
        private int size;

        private Editor(Node root, int size) {
            this.root = root;
            this.size = size;
        }

        @SuppressWarnings("unchecked")
        V get(Object key) {
            return root == null ? null : (V) root.find(hash(key), 0, key);
        }

        /** Sets {@code key} to {@code value}; returns the previous value or null. */
        @SuppressWarnings("unchecked")
        V put(K key, V value) {
            Objects.requireNonNull(value);
            Object[] previous = new Object[1];
            int h = hash(key);
            root = root == null ? new Bitmap(owner, 0, new Object[0]).put(owner, h, 0, key, value, previous)
                    : root.put(owner, h, 0, key, value, previous);
            if (previous[0] == null) {
                size++;
            }
            return (V) previous[0];
        }

        /**
         * Puts every {@code keys[i]} to {@code values[i]}, in the trie's path order, so that consecutive puts visit
         * the same nodes (a first sync fills a large map several times faster than in hash order).
         */
        void putAll(List<K> keys, List<V> values) {
            if (keys.size() >= 1 << 28) {
                throw new IllegalArgumentException("too many keys: " + keys.size());
            }
            long[] order = new long[keys.size()];
            for (int i = 0; i < order.length; i++) {
                int h = hash(keys.get(i));
                long path = 0; // the 5-bit slots from the root down: 35 bits
                for (int shift = 0; shift < 32; shift += BITS) {
                    path = (path << BITS) | ((h >>> shift) & MASK);
                }
                order[i] = (path << 28) | i;
            }
            Arrays.sort(order);
            for (long entry : order) {
                int i = (int) (entry & ((1 << 28) - 1));
                put(keys.get(i), values.get(i));
            }
        }

        /** Removes {@code key}; returns its value or null. */
        @SuppressWarnings("unchecked")
        V remove(Object key) {
            if (root == null) {
                return null;
            }
            Object[] previous = new Object[1];
            root = root.remove(owner, hash(key), 0, key, previous);
            if (previous[0] != null) {
                size--;
            }
            return (V) previous[0];
        }

        int size() {
            return size;
        }

        /** An immutable map of the current content; later edits copy the nodes it shares. */
        PersistentMap<K, V> snapshot() {
            owner = new Object();
            return size == 0 ? empty() : new PersistentMap<>(root, size);
        }
    }

    private abstract static class Node {
        /** The editor token that may change this node in place; a snapshot's nodes are never changed again. */
        final Object owner;

        Node(Object owner) {
            this.owner = owner;
        }

        abstract Object find(int hash, int shift, Object key);

        /** Returns the node to use instead of this one; {@code previous[0]} gets the replaced value. */
        abstract Node put(Object editor, int hash, int shift, Object key, Object value, Object[] previous);

        /** Returns the node to use instead of this one (null when empty); {@code previous[0]} gets the value. */
        abstract Node remove(Object editor, int hash, int shift, Object key, Object[] previous);

        abstract void forEach(BiConsumer<Object, Object> action);
    }

    /**
     * A trie node: {@code bitmap} has a bit per occupied 5-bit slot; {@code slots} holds, per bit in order, a key and
     * its value, or null and a child node. Nodes owned by the editor may have spare room at the end of {@code slots}.
     */
    private static final class Bitmap extends Node {
        private int bitmap;
        private Object[] slots;

        Bitmap(Object owner, int bitmap, Object[] slots) {
            super(owner);
            this.bitmap = bitmap;
            this.slots = slots;
        }

        @Override
        Object find(int hash, int shift, Object key) {
            int bit = 1 << ((hash >>> shift) & MASK);
            if ((bitmap & bit) == 0) {
                return null;
            }
            int i = 2 * Integer.bitCount(bitmap & (bit - 1));
            Object k = slots[i];
            if (k == null) {
                return ((Node) slots[i + 1]).find(hash, shift + BITS, key);
            }
            return key.equals(k) ? slots[i + 1] : null;
        }

        @Override
        Node put(Object editor, int hash, int shift, Object key, Object value, Object[] previous) {
            int bit = 1 << ((hash >>> shift) & MASK);
            int i = 2 * Integer.bitCount(bitmap & (bit - 1));
            if ((bitmap & bit) == 0) {
                int used = 2 * Integer.bitCount(bitmap);
                Bitmap out;
                if (owner == editor) {
                    if (used + 2 > slots.length) {
                        // grow generously: an editor filling a node (a first sync) then copies it O(log) times
                        slots = Arrays.copyOf(slots, Math.min(64, Math.max(used + 2, 2 * used)));
                    }
                    System.arraycopy(slots, i, slots, i + 2, used - i);
                    out = this;
                } else {
                    Object[] copy = new Object[used + 2];
                    System.arraycopy(slots, 0, copy, 0, i);
                    System.arraycopy(slots, i, copy, i + 2, used - i);
                    out = new Bitmap(editor, bitmap, copy);
                }
                out.slots[i] = key;
                out.slots[i + 1] = value;
                out.bitmap = bitmap | bit;
                return out;
            }
            Object k = slots[i];
            Object v = slots[i + 1];
            Object replacement;
            if (k == null) {
                Node child = (Node) v;
                Node next = child.put(editor, hash, shift + BITS, key, value, previous);
                if (next == child) {
                    return this;
                }
                replacement = next;
                k = null;
            } else if (key.equals(k)) {
                previous[0] = v;
                if (v == value) {
                    return this;
                }
                replacement = value;
                k = key;
            } else {
                replacement = pair(editor, shift + BITS, k, v, hash, key, value);
                k = null;
            }
            Bitmap out = editable(editor);
            out.slots[i] = k;
            out.slots[i + 1] = replacement;
            return out;
        }

        @Override
        Node remove(Object editor, int hash, int shift, Object key, Object[] previous) {
            int bit = 1 << ((hash >>> shift) & MASK);
            if ((bitmap & bit) == 0) {
                return this;
            }
            int i = 2 * Integer.bitCount(bitmap & (bit - 1));
            Object k = slots[i];
            if (k == null) {
                Node child = (Node) slots[i + 1];
                Node next = child.remove(editor, hash, shift + BITS, key, previous);
                if (next == child) {
                    return this;
                }
                if (next != null) {
                    Bitmap out = editable(editor);
                    out.slots[i + 1] = next;
                    return out;
                }
            } else if (key.equals(k)) {
                previous[0] = slots[i + 1];
            } else {
                return this;
            }
            if (bitmap == bit) {
                return null;
            }
            int used = 2 * Integer.bitCount(bitmap);
            Bitmap out;
            if (owner == editor) {
                out = this;
                System.arraycopy(slots, i + 2, slots, i, used - i - 2);
                slots[used - 2] = null;
                slots[used - 1] = null;
            } else {
                Object[] copy = new Object[used - 2];
                System.arraycopy(slots, 0, copy, 0, i);
                System.arraycopy(slots, i + 2, copy, i, used - i - 2);
                out = new Bitmap(editor, bitmap, copy);
            }
            out.bitmap = bitmap & ~bit;
            return out;
        }

        /** This node if the editor owns it, else an owned copy. */
        private Bitmap editable(Object editor) {
            if (owner == editor) {
                return this;
            }
            return new Bitmap(editor, bitmap, Arrays.copyOf(slots, 2 * Integer.bitCount(bitmap)));
        }

        @Override
        void forEach(BiConsumer<Object, Object> action) {
            int used = 2 * Integer.bitCount(bitmap);
            for (int i = 0; i < used; i += 2) {
                if (slots[i] == null) {
                    ((Node) slots[i + 1]).forEach(action);
                } else {
                    action.accept(slots[i], slots[i + 1]);
                }
            }
        }
    }

    /** A node of the two entries, below the level where they met. */
    private static Node pair(Object editor, int shift, Object k1, Object v1, int h2, Object k2, Object v2) {
        int h1 = hash(k1);
        if (h1 == h2) {
            return new Collision(editor, h1, new Object[] {k1, v1, k2, v2});
        }
        Object[] unused = new Object[1];
        return new Bitmap(editor, 0, new Object[4]).put(editor, h1, shift, k1, v1, unused)
                .put(editor, h2, shift, k2, v2, unused);
    }

    /** Entries whose keys have one full hash; small, so always copied on change. */
    private static final class Collision extends Node {
        private final int hash;
        private final Object[] entries;

        Collision(Object owner, int hash, Object[] entries) {
            super(owner);
            this.hash = hash;
            this.entries = entries;
        }

        @Override
        Object find(int h, int shift, Object key) {
            for (int i = 0; i < entries.length; i += 2) {
                if (key.equals(entries[i])) {
                    return entries[i + 1];
                }
            }
            return null;
        }

        @Override
        Node put(Object editor, int h, int shift, Object key, Object value, Object[] previous) {
            if (h != hash) {
                // the new key parts from this collision at this level: nest it in a trie node
                Bitmap wrapper = new Bitmap(editor, 1 << ((hash >>> shift) & MASK), new Object[] {null, this});
                return wrapper.put(editor, h, shift, key, value, previous);
            }
            for (int i = 0; i < entries.length; i += 2) {
                if (key.equals(entries[i])) {
                    previous[0] = entries[i + 1];
                    Object[] copy = entries.clone();
                    copy[i + 1] = value;
                    return new Collision(editor, hash, copy);
                }
            }
            Object[] copy = Arrays.copyOf(entries, entries.length + 2);
            copy[entries.length] = key;
            copy[entries.length + 1] = value;
            return new Collision(editor, hash, copy);
        }

        @Override
        Node remove(Object editor, int h, int shift, Object key, Object[] previous) {
            for (int i = 0; i < entries.length; i += 2) {
                if (key.equals(entries[i])) {
                    previous[0] = entries[i + 1];
                    if (entries.length == 2) {
                        return null;
                    }
                    Object[] copy = new Object[entries.length - 2];
                    System.arraycopy(entries, 0, copy, 0, i);
                    System.arraycopy(entries, i + 2, copy, i, entries.length - i - 2);
                    return new Collision(editor, hash, copy);
                }
            }
            return this;
        }

        @Override
        void forEach(BiConsumer<Object, Object> action) {
            for (int i = 0; i < entries.length; i += 2) {
                action.accept(entries[i], entries[i + 1]);
            }
        }
    }
}
