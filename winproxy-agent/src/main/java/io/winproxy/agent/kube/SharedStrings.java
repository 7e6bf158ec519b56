package io.winproxy.agent.kube;

/**
 * One instance per distinct value for the strings that repeat across watched objects (namespaces, node names, zones,
 * protocols, port names, address types): at 100,000 endpoints on 100 nodes each node name would otherwise be held
 * 1,000 times, once per endpoint, as the JSON parser made it. Uses the JVM's string table, whose entries are
 * collected when nothing else holds them.
 */
final class SharedStrings {
    private SharedStrings() {
    }

    /** {@code value}'s canonical instance, or null. */
    static String of(String value) {
        return value == null ? null : value.intern();
    }
}
