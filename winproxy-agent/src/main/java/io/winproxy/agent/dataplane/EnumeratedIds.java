package io.winproxy.agent.dataplane;

import io.winproxy.policy.plan.HnsIds;
import java.util.ArrayList;
import java.util.List;

/**
 * The IDs of one kind of HNS object as the last enumerate listed them, compared with the next enumerate in one pass
 * over the list, without allocating per listed ID and without building a set per sync: each ID as HNS spells it is
 * looked up in an open-addressing table of the known (lower-case) IDs by a case-insensitive hash and comparison, so
 * only an ID never seen before is normalised ({@link HnsIds#normalize}). The table holds one reference and one int per
 * slot (about 100 bytes an ID with the ID's own string), so 110,000 IDs cost about 11 MB.
 *
 * <p>Not thread-safe: the sync thread only.
 */
final class EnumeratedIds {
    /** What changed since the previous enumerate: IDs (lower-case) that appeared and that vanished. */
    record Diff(List<String> appeared, List<String> vanished) {
        static final Diff NONE = new Diff(List.of(), List.of());

        boolean isEmpty() {
            return appeared.isEmpty() && vanished.isEmpty();
        }
    }

    private String[] keys = new String[16];
    /** The generation (enumerate) in which each slot's ID was last listed. */
    private int[] seen = new int[16];
    private int size;
    private int generation;
    /** The IDs in the order the last enumerate listed them (the strings of the table). */
    private List<String> ids = List.of();

    /** Takes the IDs an enumerate listed (as HNS spells them) and says what changed. */
    Diff update(List<String> listed) {
        generation++;
        List<String> appeared = null;
        List<String> order = new ArrayList<>(listed.size());
        int listedKnown = 0;
        for (String text : listed) {
            int slot = find(text);
            if (slot < 0) {
                String id = HnsIds.normalize(text);
                slot = insert(id);
                if (appeared == null) {
                    appeared = new ArrayList<>();
                }
                appeared.add(id);
            } else if (seen[slot] != generation) {
                listedKnown++;
            } else {
                continue; // listed twice
            }
            seen[slot] = generation;
            order.add(keys[slot]);
        }
        List<String> vanished = null;
        int known = size - (appeared == null ? 0 : appeared.size());
        if (listedKnown < known) {
            vanished = new ArrayList<>(known - listedKnown);
            for (int slot = 0; slot < keys.length; slot++) {
                while (keys[slot] != null && seen[slot] != generation) {
                    vanished.add(keys[slot]);
                    remove(slot); // shifts a later entry into this slot: look at it again
                }
            }
        }
        ids = order;
        return appeared == null && vanished == null ? Diff.NONE
                : new Diff(appeared == null ? List.of() : appeared, vanished == null ? List.of() : vanished);
    }

    /** The IDs listed by the last enumerate (lower-case, in order). */
    List<String> ids() {
        return ids;
    }

    /** Whether the last enumerate listed the ID (lower-case). */
    boolean contains(String id) {
        return find(id) >= 0;
    }

    /**
     * Forgets one ID (lower-case): if the next enumerate lists it, it is reported as appeared. For an object whose
     * description was dropped while it may still be listed (deleted, or found gone by a delete).
     */
    void forget(String id) {
        int slot = find(id);
        if (slot >= 0) {
            remove(slot);
        }
    }

    /** Forgets everything: the next enumerate lists every ID as appeared. */
    void clear() {
        keys = new String[16];
        seen = new int[16];
        size = 0;
        ids = List.of();
    }

    // ---- open addressing (linear probing, backward-shift deletion), keyed case-insensitively -------------------

    private static int hash(String s) {
        int h = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                c += 'a' - 'A';
            }
            h = 31 * h + c;
        }
        return h ^ (h >>> 16);
    }

    private int find(String text) {
        int mask = keys.length - 1;
        for (int slot = hash(text) & mask; keys[slot] != null; slot = (slot + 1) & mask) {
            if (sameId(keys[slot], text)) {
                return slot;
            }
        }
        return -1;
    }

    /**
     * Whether {@code text} spells the lower-case {@code id} in any letter case: an ASCII comparison (GUIDs are hex),
     * several times cheaper than {@link String#equalsIgnoreCase}'s Unicode folding on 110,000 IDs a sync.
     */
    private static boolean sameId(String id, String text) {
        int n = id.length();
        if (n != text.length()) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char a = id.charAt(i);
            char b = text.charAt(i);
            if (a != b && !(b >= 'A' && b <= 'Z' && b + ('a' - 'A') == a)) {
                return false;
            }
        }
        return true;
    }

    private int insert(String id) {
        if ((size + 1) * 2 > keys.length) {
            grow();
        }
        int mask = keys.length - 1;
        int slot = hash(id) & mask;
        while (keys[slot] != null) {
            slot = (slot + 1) & mask;
        }
        keys[slot] = id;
        size++;
        return slot;
    }

    private void grow() {
        String[] oldKeys = keys;
        int[] oldSeen = seen;
        keys = new String[oldKeys.length * 2];
        seen = new int[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                seen[insert(oldKeys[i])] = oldSeen[i];
            }
        }
    }

    private void remove(int slot) {
        int mask = keys.length - 1;
        keys[slot] = null;
        size--;
        int hole = slot;
        for (int next = (slot + 1) & mask; keys[next] != null; next = (next + 1) & mask) {
            int home = hash(keys[next]) & mask;
            // Move the entry back into the hole unless its home lies cyclically in (hole, next].
            boolean homeAfterHole = hole <= next ? home > hole && home <= next : home > hole || home <= next;
            if (!homeAfterHole) {
                keys[hole] = keys[next];
                seen[hole] = seen[next];
                keys[next] = null;
                hole = next;
            }
        }
    }
}
