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
}
