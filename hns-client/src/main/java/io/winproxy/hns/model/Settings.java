package io.winproxy.hns.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Optional;

/**
 * Case-insensitive reads of policy {@code Settings} trees (HNS spells members inconsistently across views) and a
 * builder for new ones. Package-private helper of the model.
 */
final class Settings {
    private Settings() {
    }

    /** The member named {@code name} in any letter case, or null. */
    static JsonNode member(JsonNode node, String name) {
        if (node == null || !node.isObject()) {
            return null;
        }
        JsonNode exact = node.get(name);
        if (exact != null) {
            return exact;
        }
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(name)) {
                return e.getValue();
            }
        }
        return null;
    }

    /** A non-empty text member, or empty. Numbers and booleans are returned in their JSON text form. */
    static Optional<String> text(JsonNode node, String name) {
        JsonNode v = member(node, name);
        if (v == null || v.isNull() || v.isContainerNode()) {
            return Optional.empty();
        }
        String s = v.asText();
        return s.isEmpty() ? Optional.empty() : Optional.of(s);
    }

    static int integer(JsonNode node, String name) {
        JsonNode v = member(node, name);
        return v == null ? 0 : v.asInt(0);
    }

    static boolean bool(JsonNode node, String name) {
        JsonNode v = member(node, name);
        return v != null && v.asBoolean(false);
    }

    static ObjectNode object() {
        return JsonNodeFactory.instance.objectNode();
    }

    /** Puts a member unless it is null, empty or zero (HNS omits those). */
    static ObjectNode putIfSet(ObjectNode node, String name, Object value) {
        if (value instanceof String s && !s.isEmpty()) {
            node.put(name, s);
        } else if (value instanceof Integer i && i != 0) {
            node.put(name, i);
        } else if (value instanceof Boolean b && b) {
            node.put(name, true);
        }
        return node;
    }
}
