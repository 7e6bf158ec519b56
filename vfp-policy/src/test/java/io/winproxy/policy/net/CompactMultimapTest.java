package io.winproxy.policy.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CompactMultimapTest {

    @Test
    void valuesOfAKeyAreDistinctAndInTheOrderAdded() {
        CompactMultimap<String, String> map = new CompactMultimap<>();
        map.add("10.0.0.1", "a");
        map.add("10.0.0.1", "b");
        map.add("10.0.0.1", "a");
        map.add("10.0.0.2", "c");

        assertThat(map.get("10.0.0.1")).containsExactly("a", "b");
        assertThat(map.get("10.0.0.2")).containsExactly("c");
        assertThat(map.get("10.0.0.3")).isEmpty();
        assertThat(map.keyCount()).isEqualTo(2);
    }

    @Test
    void replaceKeepsTheReplacedValuesPlaceAndAddsAtTheEndWhenNothingMatches() {
        CompactMultimap<String, String> map = new CompactMultimap<>();
        map.add("ip", "a1");
        map.add("ip", "b1");
        map.add("ip", "c1");
        map.replace("ip", v -> v.startsWith("b"), "b2");
        assertThat(map.get("ip")).containsExactly("a1", "b2", "c1");

        map.replace("ip", v -> v.startsWith("d"), "d1");
        assertThat(map.get("ip")).containsExactly("a1", "b2", "c1", "d1");

        map.add("one", "x1");
        map.replace("one", v -> v.startsWith("x"), "x2");
        assertThat(map.get("one")).containsExactly("x2");
        map.replace("none", v -> true, "y");
        assertThat(map.get("none")).containsExactly("y");
    }

    @Test
    void removingDownToOneValueAndToNoneLeavesNoTrace() {
        CompactMultimap<String, String> map = new CompactMultimap<>();
        map.add("ip", "a");
        map.add("ip", "b");
        map.removeIf("ip", "a"::equals);
        assertThat(map.get("ip")).containsExactly("b");
        map.removeIf("ip", "b"::equals);
        assertThat(map.get("ip")).isEmpty();
        assertThat(map.keyCount()).isZero();
    }

    @Test
    void theValuesOfAKeyAreReadOnly() {
        CompactMultimap<String, String> map = new CompactMultimap<>();
        map.add("ip", "a");
        map.add("ip", "b");
        assertThatThrownBy(() -> map.get("ip").add("c")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> map.get("ip").clear()).isInstanceOf(UnsupportedOperationException.class);
    }
}
