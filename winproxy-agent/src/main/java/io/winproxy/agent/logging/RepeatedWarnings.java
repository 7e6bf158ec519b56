package io.winproxy.agent.logging;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Groups warnings about one object so that each object costs one log line with a count, however many of its parts
 * are wrong (one EndpointSlice listing 480 addresses twice is one line, not 480). Keys are compared with
 * {@code equals}; groups keep the order in which their first warning came. Not thread-safe; use one per batch.
 *
 * @param <K> what identifies a group (e.g. kind, object and reason)
 * @param <W> a warning
 */
public final class RepeatedWarnings<K, W> {

    /** One group: its key, its first warning (the one shown) and how many warnings it holds. */
    public record Group<K, W>(K key, W first, int count) {
    }

    private final Function<W, K> keyOf;
    private final Map<K, List<W>> groups = new LinkedHashMap<>();

    /** @param keyOf the group a warning belongs to */
    public RepeatedWarnings(Function<W, K> keyOf) {
        this.keyOf = Objects.requireNonNull(keyOf);
    }

    /** Groups the given warnings in one call. */
    public static <K, W> List<Group<K, W>> group(Iterable<W> warnings, Function<W, K> keyOf) {
        RepeatedWarnings<K, W> grouped = new RepeatedWarnings<>(keyOf);
        warnings.forEach(grouped::add);
        return grouped.groups();
    }

    public void add(W warning) {
        groups.computeIfAbsent(keyOf.apply(warning), k -> new ArrayList<>()).add(warning);
    }

    /** The groups, in the order of their first warning. */
    public List<Group<K, W>> groups() {
        List<Group<K, W>> out = new ArrayList<>(groups.size());
        groups.forEach((key, list) -> out.add(new Group<>(key, list.get(0), list.size())));
        return out;
    }
}
