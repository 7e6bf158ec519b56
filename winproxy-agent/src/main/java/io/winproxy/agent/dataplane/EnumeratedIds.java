package io.winproxy.agent.dataplane;

import io.winproxy.policy.plan.HnsIds;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The IDs of one kind of HNS object as the last enumerate listed them, compared with the next enumerate at a cost
 * proportional to what changed plus one pass over the list: an unchanged list (the usual case) is recognised by one
 * sequential comparison; otherwise each listed ID is looked up by its text as HNS returned it, and only IDs never
 * seen before are normalised ({@link HnsIds#normalize}). No per-sync set of all IDs is built.
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

    /** One object, whatever the letter case HNS spells its ID in. */
    private static final class Id {
        final String id;
        int generation;

        Id(String id) {
            this.id = id;
        }
    }

    /** One spelling of an ID as listed. */
    private static final class Spelling {
        final Id of;
        int generation;

        Spelling(Id of) {
            this.of = of;
        }
    }

    private List<String> lastListed = List.of();
    private final Map<String, Spelling> bySpelling = new HashMap<>();
    private final Map<String, Id> present = new HashMap<>();
    /** The lower-case IDs, in the order listed (rebuilt only when the list changed). */
    private List<String> ids = List.of();
    private int generation;

    /** Takes the IDs an enumerate listed (as HNS spells them) and says what changed. */
    Diff update(List<String> listed) {
        if (listed.equals(lastListed)) {
            return Diff.NONE;
        }
        generation++;
        List<String> appeared = new ArrayList<>();
        List<String> order = new ArrayList<>(listed.size());
        int spellingsSeen = 0;
        for (String text : listed) {
            Spelling spelling = bySpelling.get(text);
            if (spelling == null) {
                String id = HnsIds.normalize(text);
                Id known = present.get(id);
                if (known == null) {
                    known = new Id(id);
                    present.put(id, known);
                    appeared.add(id);
                }
                spelling = new Spelling(known);
                bySpelling.put(text, spelling);
            }
            if (spelling.generation != generation) {
                spelling.generation = generation;
                spellingsSeen++;
            }
            spelling.of.generation = generation;
            order.add(spelling.of.id);
        }
        List<String> vanished = new ArrayList<>();
        if (spellingsSeen < bySpelling.size()) {
            for (Iterator<Spelling> it = bySpelling.values().iterator(); it.hasNext(); ) {
                Spelling spelling = it.next();
                if (spelling.generation != generation) {
                    it.remove();
                    if (spelling.of.generation != generation && present.remove(spelling.of.id) != null) {
                        vanished.add(spelling.of.id);
                    }
                }
            }
        }
        lastListed = List.copyOf(listed);
        ids = order;
        return new Diff(appeared, vanished);
    }

    /** The IDs listed by the last enumerate (lower-case, in order). */
    List<String> ids() {
        return ids;
    }

    boolean contains(String id) {
        return present.containsKey(id);
    }

    /** Forgets everything: the next enumerate lists every ID as appeared. */
    void clear() {
        lastListed = List.of();
        bySpelling.clear();
        present.clear();
        ids = List.of();
    }
}
