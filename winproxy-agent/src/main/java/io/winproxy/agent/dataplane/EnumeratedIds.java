package io.winproxy.agent.dataplane;

import io.winproxy.policy.plan.HnsIds;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The IDs of one kind of HNS object as the last enumerate listed them, compared with the next enumerate at a cost
 * proportional to what changed plus one comparison per listed ID: HNS lists the same objects in the same order from
 * one enumerate to the next, so the texts that spell the previous list's IDs at the same place from the start (the
 * common prefix) and from the end (the common suffix) are known without a lookup. HNS's own spelling (upper-case on
 * some builds) is not kept: a text is compared with the lower-case ID by an ASCII case-insensitive comparison
 * ({@link #sameId}). Only the middle between them goes through an open-addressing table of the known (lower-case) IDs, looked up by a case-insensitive hash and
 * comparison, so only an ID never seen before is normalised ({@link HnsIds#normalize}). A list in another order, or
 * with an ID listed twice, is compared in full (every ID looked up): correct, only slower. The table holds one
 * reference and one int per slot (about 100 bytes an ID with the ID's own string, which the journal shares), so
 * 110,000 IDs cost about 11 MB.
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

    private static final String[] NONE = new String[0];

    private String[] keys = new String[16];
    /** The generation (enumerate) in which each slot's ID was last listed. */
    private int[] seen = new int[16];
    private int size;
    private int generation;
    /** The lower-case ID at each place of the last enumerate. */
    private String[] keyAt = NONE;
    /** Whether the last enumerate is not comparable place by place (first, repeats, or not read yet). */
    private boolean compareInFull = true;
    /** IDs winproxy created since the last enumerate, in order (see {@link #expect}). */
    private final List<String> expected = new ArrayList<>();
    /**
     * Whether an expected ID was forgotten since the last enumerate (deleted and created again): it may stand in the
     * previous list, whose middle is checked by the marks that only a lookup sets, so every ID is looked up.
     */
    private boolean expectedWasForgotten;
    /** IDs forgotten since the last enumerate: where one is listed again it must not count as known. */
    private final Set<String> forgotten = new HashSet<>();
    /** The last enumerate's IDs in order without repeats, built when asked for. */
    private List<String> ids = List.of();

    /** Takes the IDs an enumerate listed (as HNS spells them) and says what changed. */
    Diff update(List<String> listed) {
        generation++;
        String[] next = listed.toArray(NONE);
        int prefix = 0;
        int suffix = 0;
        if (!compareInFull) {
            int common = Math.min(next.length, keyAt.length);
            while (prefix < common && sameId(keyAt[prefix], next[prefix]) && still(keyAt[prefix])) {
                prefix++;
            }
            while (suffix < common - prefix
                    && sameId(keyAt[keyAt.length - 1 - suffix], next[next.length - 1 - suffix])
                    && still(keyAt[keyAt.length - 1 - suffix])) {
                suffix++;
            }
        }
        forgotten.clear();
        String[] nextKeys = new String[next.length];
        System.arraycopy(keyAt, 0, nextKeys, 0, prefix);
        System.arraycopy(keyAt, keyAt.length - suffix, nextKeys, next.length - suffix, suffix);
        List<String> appeared = null;
        int listedAgain = 0;
        // IDs winproxy created since are usually listed in the order it created them: matched in that order by a
        // comparison, without a lookup (when the comparison falls through to the table, every ID still has a slot;
        // a full comparison looks every ID up, for the marks it sweeps by).
        int matched = 0;
        boolean inOrder = !compareInFull && !expectedWasForgotten;
        expectedWasForgotten = false;
        for (int i = prefix; i < next.length - suffix; i++) {
            if (inOrder && matched < expected.size() && sameId(expected.get(matched), next[i])) {
                nextKeys[i] = expected.get(matched++);
                listedAgain++;
                continue;
            }
            int slot = find(next[i]);
            if (slot < 0) {
                String id = HnsIds.normalize(next[i]);
                slot = insert(id);
                if (appeared == null) {
                    appeared = new ArrayList<>();
                }
                appeared.add(id);
            } else if (seen[slot] != generation) {
                listedAgain++; // a repeat (seen already) counts once
            }
            seen[slot] = generation;
            nextKeys[i] = keys[slot];
        }
        List<String> vanished = null;
        if (compareInFull) {
            int known = size - (appeared == null ? 0 : appeared.size());
            if (listedAgain < known) {
                vanished = new ArrayList<>(known - listedAgain);
                for (int slot = 0; slot < keys.length; slot++) {
                    while (keys[slot] != null && seen[slot] != generation) {
                        vanished.add(keys[slot]);
                        remove(slot); // shifts a later entry into this slot: look at it again
                    }
                }
            }
        } else {
            // The previous list had no repeats, so an ID of its middle is in the new prefix or suffix only if it is
            // in the new middle too: what the new middle did not list has vanished. So has an expected ID that was
            // neither matched in order nor listed out of it.
            for (int i = prefix; i < keyAt.length - suffix; i++) {
                vanished = vanishedUnlessSeen(keyAt[i], vanished);
            }
            for (int j = matched; j < expected.size(); j++) {
                vanished = vanishedUnlessSeen(expected.get(j), vanished);
            }
        }
        expected.clear();
        keyAt = nextKeys;
        // A repeat anywhere (in the middle, or of the prefix or suffix) shows as more places than IDs.
        compareInFull = next.length != size;
        ids = null;
        return appeared == null && vanished == null ? Diff.NONE
                : new Diff(appeared == null ? List.of() : appeared, vanished == null ? List.of() : vanished);
    }

    private List<String> vanishedUnlessSeen(String id, List<String> vanished) {
        int slot = find(id);
        if (slot < 0 || seen[slot] == generation) {
            return vanished;
        }
        List<String> out = vanished == null ? new ArrayList<>() : vanished;
        out.add(keys[slot]);
        remove(slot);
        return out;
    }

    /** Whether the ID at a place of the last list is still known (not forgotten since). */
    private boolean still(String key) {
        return forgotten.isEmpty() || !forgotten.contains(key);
    }

    /** The IDs listed by the last enumerate (lower-case, in order, each once). */
    List<String> ids() {
        if (ids == null) {
            ids = compareInFull ? List.copyOf(new LinkedHashSet<>(Arrays.asList(keyAt)))
                    : Collections.unmodifiableList(Arrays.asList(keyAt));
        }
        return ids;
    }

    /** Whether the last enumerate listed the ID (lower-case). */
    boolean contains(String id) {
        return find(id) >= 0;
    }

    /**
     * An ID (lower-case) winproxy has just created: known from now on, so that the next enumerate listing it is no
     * change (the creator already did what an appearance would cause); if that enumerate does not list it, it has
     * vanished. Cheap at any number: a first sync creates 100,000 endpoints, and the next enumerate must not cost a
     * lookup and an appearance for each.
     */
    void expect(String id) {
        if (find(id) < 0) {
            int slot = insert(id); // may grow the table: the arrays are read after
            seen[slot] = generation;
            expected.add(id);
            expectedWasForgotten |= forgotten.contains(id);
        }
    }

    /**
     * Forgets one ID (lower-case): if the next enumerate lists it, it is reported as appeared. For an object whose
     * description was dropped while it may still be listed (deleted, or found gone by a delete).
     */
    void forget(String id) {
        int slot = find(id);
        if (slot >= 0) {
            remove(slot);
            forgotten.add(id);
        }
    }

    /** Forgets everything: the next enumerate lists every ID as appeared. */
    void clear() {
        keys = new String[16];
        seen = new int[16];
        size = 0;
        keyAt = NONE;
        compareInFull = true;
        forgotten.clear();
        expected.clear();
        expectedWasForgotten = false;
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
