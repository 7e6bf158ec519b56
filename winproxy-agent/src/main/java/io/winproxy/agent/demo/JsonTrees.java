package io.winproxy.agent.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/** JSON tree helpers for comparing Kubernetes objects regardless of how empty values are spelled. */
final class JsonTrees {
    private JsonTrees() {
    }

    /**
     * A copy without nulls, empty objects and empty arrays (recursively), so that {@code labels: {}}, a missing
     * {@code labels} and {@code labels: null} compare equal.
     */
    static JsonNode withoutEmpty(JsonNode node) {
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
            while (fields.hasNext()) {
                Map.Entry<String, JsonNode> field = fields.next();
                JsonNode value = withoutEmpty(field.getValue());
                if (!isEmpty(value)) {
                    copy.set(field.getKey(), value);
                }
            }
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = JsonNodeFactory.instance.arrayNode();
            for (JsonNode element : node) {
                copy.add(withoutEmpty(element));
            }
            return copy;
        }
        return node;
    }

    private static boolean isEmpty(JsonNode value) {
        return value.isNull() || value.isMissingNode() || (value.isContainerNode() && value.isEmpty());
    }
}
