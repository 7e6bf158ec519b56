package io.winproxy.hns.explain;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/**
 * Undoes what {@code ConvertTo-Json} does to objects nested deeper than its {@code -Depth} (2 by default): it writes
 * them as their PowerShell string form, {@code "@{ExternalPort=53; Protocol=17; Type=ELB; VIPs=System.Object[]}"}.
 * Such strings become objects again (numbers and {@code True}/{@code False} typed); arrays cut to
 * {@code "System.Object[]"} cannot be recovered and stay that string, so the reader sees what was lost.
 */
final class PowerShellValues {
    static final String TRUNCATED_ARRAY = "System.Object[]";

    private PowerShellValues() {
    }

    /** Whether {@code node} (recursively) holds values PowerShell truncated. */
    static boolean hasTruncated(JsonNode node) {
        if (node.isTextual()) {
            return node.asText().equals(TRUNCATED_ARRAY) || isHashtable(node.asText());
        }
        for (JsonNode child : node) {
            if (hasTruncated(child)) {
                return true;
            }
        }
        return false;
    }

    /** A copy of {@code node} with every {@code "@{k=v; ...}"} string rebuilt as an object. */
    static JsonNode expand(JsonNode node) {
        if (node.isTextual() && isHashtable(node.asText())) {
            return parseHashtable(node.asText());
        }
        if (node.isArray()) {
            ArrayNode out = JsonNodeFactory.instance.arrayNode();
            node.forEach(child -> out.add(expand(child)));
            return out;
        }
        if (node.isObject()) {
            ObjectNode out = JsonNodeFactory.instance.objectNode();
            Iterator<Map.Entry<String, JsonNode>> it = node.fields();
            while (it.hasNext()) {
                Map.Entry<String, JsonNode> e = it.next();
                out.set(e.getKey(), expand(e.getValue()));
            }
            return out;
        }
        return node;
    }

    private static boolean isHashtable(String s) {
        return s.startsWith("@{") && s.endsWith("}");
    }

    private static ObjectNode parseHashtable(String s) {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        String body = s.substring(2, s.length() - 1);
        for (String pair : body.split(";")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                continue;
            }
            String key = pair.substring(0, eq).trim();
            String value = pair.substring(eq + 1).trim();
            if (value.startsWith("@{") || value.isEmpty()) {
                continue;
            }
            if (value.matches("-?[0-9]{1,18}")) {
                out.put(key, Long.parseLong(value));
            } else if (value.equalsIgnoreCase("True") || value.equalsIgnoreCase("False")) {
                out.put(key, Boolean.parseBoolean(value));
            } else {
                out.put(key, value);
            }
        }
        return out;
    }
}
