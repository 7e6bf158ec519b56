package io.winproxy.policy.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link OpenHashMap} against {@link HashMap}: the same answers through puts, removes, growth and clears. */
class OpenHashMapTest {

    /**
     * Keys with few distinct hashes (a 64-value key space folded onto colliding hashes) make long probe runs that wrap
     * around the table's end, where a removal's backward shift is easiest to get wrong.
     */
    private record Colliding(int value) {
        @Override
        public int hashCode() {
            return value % 7;
        }
    }

    @Test
    void answersAsAHashMapThroughRandomPutsAndRemoves() {
        Random random = new Random(42);
        for (int keySpace : new int[] {8, 64, 5_000}) {
            OpenHashMap<Object, Integer> open = new OpenHashMap<>();
            Map<Object, Integer> reference = new HashMap<>();
            for (int step = 0; step < 60_000; step++) {
                int k = random.nextInt(keySpace);
                Object key = step % 2 == 0 ? "10.244." + (k / 256) + "." + (k % 256) : new Colliding(k);
                if (random.nextInt(3) == 0) {
                    assertThat(open.remove(key)).isEqualTo(reference.remove(key));
                } else {
                    assertThat(open.put(key, step)).isEqualTo(reference.put(key, step));
                }
                assertThat(open.size()).isEqualTo(reference.size());
                Object probe = step % 2 == 0 ? new Colliding(random.nextInt(keySpace))
                        : "10.244.0." + random.nextInt(Math.min(keySpace, 256));
                assertThat(open.get(probe)).isEqualTo(reference.get(probe));
                assertThat(open.containsKey(probe)).isEqualTo(reference.containsKey(probe));
            }
            assertThat(open).isEqualTo(reference);
            assertThat(new HashSet<>(open.keySet())).isEqualTo(reference.keySet());
            assertThat(open.values()).containsExactlyInAnyOrderElementsOf(reference.values());
            assertThat(new java.util.ArrayList<>(open.values())).as("addAll through toArray")
                    .containsExactlyInAnyOrderElementsOf(reference.values());
            Map<Object, Integer> seen = new HashMap<>();
            open.forEach(seen::put);
            assertThat(seen).isEqualTo(reference);
        }
    }

    @Test
    void growsPastItsLoadAndEmptiesOnClear() {
        OpenHashMap<String, String> map = new OpenHashMap<>();
        for (int i = 0; i < 100_000; i++) {
            map.put("ip-" + i, "id-" + i);
        }
        assertThat(map).hasSize(100_000).containsEntry("ip-99999", "id-99999").containsEntry("ip-0", "id-0");
        map.clear();
        assertThat(map).isEmpty();
        assertThat(map.get("ip-5")).isNull();
        map.put("ip-5", "again");
        assertThat(map).containsExactly(Map.entry("ip-5", "again"));
    }

    @Test
    void entriesWriteThroughAndViewsRefuseRemoval() {
        OpenHashMap<String, Integer> map = new OpenHashMap<>();
        map.put("a", 1);
        map.put("b", 2);
        map.entrySet().forEach(e -> e.setValue(e.getValue() * 10));
        assertThat(map).containsOnly(Map.entry("a", 10), Map.entry("b", 20));
        Iterator<String> keys = map.keySet().iterator();
        keys.next();
        assertThatThrownBy(keys::remove).isInstanceOf(UnsupportedOperationException.class);
        assertThat(map.computeIfAbsent("c", k -> 3)).isEqualTo(3);
        assertThat(map.computeIfAbsent("c", k -> 4)).isEqualTo(3);
    }

    @Test
    void aChangeWhileIteratingIsReported() {
        OpenHashMap<String, Integer> map = new OpenHashMap<>();
        map.put("a", 1);
        map.put("b", 2);
        Iterator<Integer> values = map.values().iterator();
        values.next();
        map.put("c", 3);
        assertThatThrownBy(values::next).isInstanceOf(ConcurrentModificationException.class);
        assertThatThrownBy(() -> map.forEach((k, v) -> map.remove("a")))
                .isInstanceOf(ConcurrentModificationException.class);
    }

    @Test
    void refusesNullKeysAndValues() {
        OpenHashMap<String, String> map = new OpenHashMap<>();
        assertThatThrownBy(() -> map.put(null, "x")).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> map.put("x", null)).isInstanceOf(NullPointerException.class);
        assertThat(map.get(null)).isNull();
        assertThat(map.remove(null)).isNull();
    }
}
