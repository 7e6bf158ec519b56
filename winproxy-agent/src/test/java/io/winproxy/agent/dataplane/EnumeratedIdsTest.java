package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EnumeratedIdsTest {
    private static final String A = "77696E70-7278-4000-8000-00000000000A";
    private static final String B = "77696E70-7278-4000-8000-00000000000B";
    private static final String C = "77696E70-7278-4000-8000-00000000000C";

    @Test
    void theFirstEnumerateListsEveryIdAsAppearedLowerCaseInOrder() {
        EnumeratedIds ids = new EnumeratedIds();
        EnumeratedIds.Diff diff = ids.update(List.of(B, A));
        assertThat(diff.appeared()).containsExactly(B.toLowerCase(), A.toLowerCase());
        assertThat(diff.vanished()).isEmpty();
        assertThat(ids.ids()).containsExactly(B.toLowerCase(), A.toLowerCase());
        assertThat(ids.contains(A.toLowerCase())).isTrue();
    }

    @Test
    void anUnchangedListIsNoChangeEvenAsNewStringObjects() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A, B));
        EnumeratedIds.Diff diff = ids.update(new ArrayList<>(List.of(new String(A), new String(B))));
        assertThat(diff.isEmpty()).isTrue();
    }

    @Test
    void whatAppearedAndWhatVanishedAreReportedOnce() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A, B));
        EnumeratedIds.Diff diff = ids.update(List.of(B, C));
        assertThat(diff.appeared()).containsExactly(C.toLowerCase());
        assertThat(diff.vanished()).containsExactly(A.toLowerCase());
        assertThat(ids.contains(A.toLowerCase())).isFalse();
        assertThat(ids.update(List.of(B, C, C)).isEmpty()).as("a repeat in the list changes nothing").isTrue();
    }

    @Test
    void anIdSpelledInAnotherLetterCaseIsTheSameObjectNotAVanishAndAnAppearance() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A, B));
        EnumeratedIds.Diff diff = ids.update(List.of(A.toLowerCase(), B));
        assertThat(diff.appeared()).isEmpty();
        assertThat(diff.vanished()).isEmpty();
        assertThat(ids.contains(A.toLowerCase())).isTrue();
        assertThat(ids.update(List.of(B)).vanished()).containsExactly(A.toLowerCase());
    }

    @Test
    void clearForgetsEverything() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A));
        ids.clear();
        assertThat(ids.update(List.of(A)).appeared()).containsExactly(A.toLowerCase());
    }

    @Test
    void randomEnumeratesAgreeWithASetOfTheSameIdsWhateverGrowsShrinksOrWrapsAround() {
        java.util.Random random = new java.util.Random(20261126);
        EnumeratedIds ids = new EnumeratedIds();
        java.util.Set<String> reference = new java.util.LinkedHashSet<>();
        for (int round = 0; round < 300; round++) {
            java.util.Set<String> next = new java.util.LinkedHashSet<>(reference);
            for (int i = random.nextInt(40); i > 0 && !next.isEmpty(); i--) {
                next.remove(new ArrayList<>(next).get(random.nextInt(next.size())));
            }
            for (int i = random.nextInt(40); i > 0; i--) {
                next.add(java.util.UUID.randomUUID().toString());
            }
            List<String> listed = new ArrayList<>();
            for (String id : next) {
                listed.add(random.nextBoolean() ? id.toUpperCase(java.util.Locale.ROOT) : id);
            }
            java.util.Collections.shuffle(listed, random);
            EnumeratedIds.Diff diff = ids.update(listed);

            java.util.Set<String> appeared = new java.util.HashSet<>(next);
            appeared.removeAll(reference);
            java.util.Set<String> vanished = new java.util.HashSet<>(reference);
            vanished.removeAll(next);
            assertThat(diff.appeared()).as("round %d", round).containsExactlyInAnyOrderElementsOf(appeared);
            assertThat(diff.vanished()).as("round %d", round).containsExactlyInAnyOrderElementsOf(vanished);
            assertThat(ids.ids()).containsExactlyInAnyOrderElementsOf(next);
            for (String id : next) {
                assertThat(ids.contains(id)).isTrue();
            }
            for (String id : vanished) {
                assertThat(ids.contains(id)).isFalse();
            }
            reference = next;
        }
    }

    @Test
    void anIdForgottenAtAPlaceThatDidNotChangeIsReportedAsAppearedWhenListedAgain() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A, B, C));
        ids.forget(B.toLowerCase());
        EnumeratedIds.Diff diff = ids.update(List.of(A, B, C));
        assertThat(diff.appeared()).containsExactly(B.toLowerCase());
        assertThat(diff.vanished()).isEmpty();
        assertThat(ids.update(List.of(A, B, C)).isEmpty()).isTrue();
    }

    @Test
    void aRepeatInTheUnchangedPartIsListedOnceAndTheNextEnumerateIsComparedInFull() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A, B, C));
        assertThat(ids.update(List.of(A, B, A, C)).isEmpty()).isTrue();
        assertThat(ids.ids()).containsExactly(A.toLowerCase(), B.toLowerCase(), C.toLowerCase());
        EnumeratedIds.Diff diff = ids.update(List.of(B, A, C));
        assertThat(diff.isEmpty()).isTrue();
        assertThat(ids.update(List.of(B, C)).vanished()).containsExactly(A.toLowerCase());
    }

    @Test
    void anIdWinproxyCreatedIsNoNewsWhenListedAndHasVanishedWhenNot() {
        EnumeratedIds ids = new EnumeratedIds();
        ids.update(List.of(A));
        ids.expect(B.toLowerCase());
        ids.expect(C.toLowerCase());
        assertThat(ids.contains(B.toLowerCase())).isTrue();
        EnumeratedIds.Diff diff = ids.update(List.of(A, B));
        assertThat(diff.appeared()).isEmpty();
        assertThat(diff.vanished()).containsExactly(C.toLowerCase());
        assertThat(ids.ids()).containsExactly(A.toLowerCase(), B.toLowerCase());
    }

    /**
     * HNS's usual case: the same order from one enumerate to the next, a few IDs inserted or removed anywhere, now and
     * then a repeat, another spelling, a forgotten ID or IDs winproxy created; every diff agrees with a set of the
     * same IDs.
     */
    @Test
    void enumeratesInAStableOrderWithEditsAnywhereAgreeWithASetOfTheSameIds() {
        java.util.Random random = new java.util.Random(1126);
        EnumeratedIds ids = new EnumeratedIds();
        List<String> order = new ArrayList<>();
        java.util.Set<String> known = new java.util.HashSet<>();
        for (int round = 0; round < 2000; round++) {
            for (int i = random.nextInt(4); i > 0 && !order.isEmpty(); i--) {
                order.remove(random.nextInt(order.size()));
            }
            for (int i = random.nextInt(4); i > 0; i--) {
                order.add(random.nextInt(order.size() + 1), java.util.UUID.randomUUID().toString());
            }
            if (!order.isEmpty() && random.nextInt(10) == 0) {
                String id = order.get(random.nextInt(order.size()));
                ids.forget(id);
                known.remove(id);
                if (random.nextBoolean()) {
                    ids.expect(id); // deleted and created again with the same ID
                    known.add(id);
                }
            }
            for (int i = random.nextInt(3) == 0 ? random.nextInt(5) : 0; i > 0; i--) {
                // created by winproxy: usually listed at the end in creation order, sometimes elsewhere or not at all
                String id = java.util.UUID.randomUUID().toString();
                ids.expect(id);
                known.add(id);
                int where = random.nextInt(10);
                if (where < 7) {
                    order.add(id);
                } else if (where < 9) {
                    order.add(random.nextInt(order.size() + 1), id);
                }
            }
            List<String> listed = new ArrayList<>();
            for (String id : order) {
                listed.add(random.nextInt(50) == 0 ? id.toUpperCase(java.util.Locale.ROOT) : id);
            }
            if (!order.isEmpty() && random.nextInt(20) == 0) {
                listed.add(random.nextInt(listed.size() + 1), order.get(random.nextInt(order.size())));
            }
            EnumeratedIds.Diff diff = ids.update(listed);

            java.util.Set<String> now = new java.util.LinkedHashSet<>();
            listed.forEach(text -> now.add(text.toLowerCase(java.util.Locale.ROOT)));
            List<String> appeared = new ArrayList<>(now);
            appeared.removeAll(known);
            java.util.Set<String> vanished = new java.util.HashSet<>(known);
            vanished.removeAll(now);
            assertThat(diff.appeared()).as("round %d", round).containsExactlyInAnyOrderElementsOf(appeared);
            assertThat(diff.vanished()).as("round %d", round).containsExactlyInAnyOrderElementsOf(vanished);
            assertThat(ids.ids()).as("round %d", round).containsExactlyElementsOf(now);
            for (String id : vanished) {
                assertThat(ids.contains(id)).isFalse();
            }
            known = now;
        }
    }
}
