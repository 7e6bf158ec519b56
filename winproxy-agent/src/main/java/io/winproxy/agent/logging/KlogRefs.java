package io.winproxy.agent.logging;

import java.util.Locale;

/**
 * The conventions of winproxy's structured log lines, as kube-proxy's: an object is a key named after its kind in
 * lower camel case ({@code service}, {@code endpointSlice}, {@code node}) whose value is klog's {@code KRef}
 * ({@code namespace/name}, or {@code name} for cluster-scoped objects), and a message starts with a capital letter.
 * Stateless.
 */
public final class KlogRefs {
    private KlogRefs() {
    }

    /** klog's {@code KRef}: {@code namespace/name}, or {@code name} without a namespace. */
    public static String ref(String namespace, String name) {
        return namespace == null || namespace.isEmpty() ? String.valueOf(name) : namespace + "/" + name;
    }

    /** The key for an object of a kind: {@code EndpointSlice} → {@code endpointSlice}. */
    public static String key(String kind) {
        if (kind == null || kind.isEmpty()) {
            return "object";
        }
        return kind.substring(0, 1).toLowerCase(Locale.ROOT) + kind.substring(1);
    }

    /** The text with its first letter upper-case, as klog messages start. */
    public static String capitalize(String text) {
        if (text == null || text.isEmpty()) {
            return "";
        }
        return text.substring(0, 1).toUpperCase(Locale.ROOT) + text.substring(1);
    }
}
