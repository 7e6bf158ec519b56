package io.winproxy.policy.desired;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PersistentMapTest {

    /** A key whose hash is chosen, so that keys collide on some or all bits. */
    private record Key(int id, int hash) {
        @Override
        public int hashCode() {
            return hash;
        }
    }

    @Test
    void randomEditsMatchAHashMapAndEverySnapshotKeepsItsContent() {
        Random random = new Random(42);
        PersistentMap.Editor<Key, Integer> editor = PersistentMap.<Key, Integer>empty().editor();
        Map<Key, Integer> model = new HashMap<>();
        List<PersistentMap<Key, Integer>> snapshots = new ArrayList<>();
        List<Map<Key, Integer>> models = new ArrayList<>();
        for (int round = 0; round < 200; round++) {
            int edits = round == 0 ? 3000 : random.nextInt(40);
            for (int i = 0; i < edits; i++) {
                int id = random.nextInt(4000);
                // a few hash shapes: spread, sharing low bits, sharing all bits (full collisions)
                int hash = switch (id % 3) {
                    case 0 -> id * 0x9E3779B9;
                    case 1 -> (id % 64) | (id << 20);
                    default -> id % 50;
                };
                Key key = new Key(id, hash);
                if (random.nextInt(3) == 0) {
                    assertThat(editor.remove(key)).isEqualTo(model.remove(key));
                } else {
                    int value = random.nextInt(1000);
                    assertThat(editor.put(key, value)).isEqualTo(model.put(key, value));
                }
            }
            assertThat(editor.size()).isEqualTo(model.size());
            snapshots.add(editor.snapshot());
            models.add(new HashMap<>(model));
        }
        for (int i = 0; i < snapshots.size(); i++) {
            PersistentMap<Key, Integer> snapshot = snapshots.get(i);
            Map<Key, Integer> expected = models.get(i);
            Map<Key, Integer> actual = new HashMap<>();
            snapshot.forEach(actual::put);
            assertThat(actual).as("snapshot " + i).isEqualTo(expected);
            assertThat(snapshot.size()).isEqualTo(expected.size());
            expected.forEach((k, v) -> assertThat(snapshot.get(k)).isEqualTo(v));
            assertThat(snapshot.get(new Key(-1, 7))).isNull();
        }
    }

    @Test
    void putAllEqualsPutsOneByOne() {
        List<String> keys = new ArrayList<>();
        List<Integer> values = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            keys.add("10.244." + (i / 250) + "." + (i % 250));
            values.add(i);
        }
        keys.add("10.244.0.0");
        values.add(-1); // a repeated key: the later value wins, as with put
        PersistentMap.Editor<String, Integer> editor = PersistentMap.<String, Integer>empty().editor();
        editor.put("other", 7);
        editor.putAll(keys, values);
        PersistentMap<String, Integer> map = editor.snapshot();
        assertThat(map.size()).isEqualTo(5001);
        assertThat(map.get("other")).isEqualTo(7);
        assertThat(map.get("10.244.0.0")).isEqualTo(-1);
        for (int i = 1; i < 5000; i++) {
            assertThat(map.get(keys.get(i))).isEqualTo(i);
        }
    }

    @Test
    void anEditorFromASnapshotLeavesItAlone() {
        PersistentMap.Editor<String, String> editor = PersistentMap.<String, String>empty().editor();
        editor.put("a", "1");
        editor.put("b", "2");
        PersistentMap<String, String> first = editor.snapshot();
        PersistentMap.Editor<String, String> other = first.editor();
        other.put("a", "changed");
        other.remove("b");
        editor.put("c", "3");
        assertThat(first.get("a")).isEqualTo("1");
        assertThat(first.get("b")).isEqualTo("2");
        assertThat(first.get("c")).isNull();
        assertThat(other.snapshot().get("a")).isEqualTo("changed");
        assertThat(editor.snapshot().size()).isEqualTo(3);
    }
}
