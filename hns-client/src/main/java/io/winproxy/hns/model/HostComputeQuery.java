package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The query document of every HCN enumerate/query call. {@code filter} is a JSON object <em>encoded as a string</em>
 * inside the JSON (double-encoded, as hcsshim sends it); its keys are v1 property names ({@code VirtualNetwork} for
 * an endpoint's network). {@code flags}: 0 standard, 1 detailed. Encoding omits a zero flags and a null filter.
 */
public record HostComputeQuery(@JsonProperty("SchemaVersion") SchemaVersion schemaVersion,
                               @JsonProperty("Flags") int flags,
                               @JsonProperty("Filter") String filter) {
    public static final int FLAG_DETAILED = 1;

    /** {@code {"SchemaVersion":{"Major":2,"Minor":0}}}: every object. */
    public static HostComputeQuery all() {
        return new HostComputeQuery(SchemaVersion.V2, 0, null);
    }

    /** The object with this ID (filter {@code {"ID":"<guid>"}}). */
    public static HostComputeQuery byId(String id) {
        return withFilter("ID", id);
    }

    /** The object with this name (filter {@code {"Name":"<name>"}}). */
    public static HostComputeQuery byName(String name) {
        return withFilter("Name", name);
    }

    /** The endpoints of one network (filter {@code {"VirtualNetwork":"<network guid>"}}, a v1 key). */
    public static HostComputeQuery endpointsOfNetwork(String networkId) {
        return withFilter("VirtualNetwork", networkId);
    }

    /** The endpoints of a network given by name (hns.v2.psm1's {@code VirtualNetworkName} filter). */
    public static HostComputeQuery endpointsOfNetworkName(String networkName) {
        return withFilter("VirtualNetworkName", networkName);
    }

    /** The same query asking for detailed properties ({@code "Flags":1}). */
    public HostComputeQuery detailed() {
        return new HostComputeQuery(schemaVersion, flags | FLAG_DETAILED, filter);
    }

    /** The same query asking for the v1 view ({@code SchemaVersion {1,0}}). */
    public HostComputeQuery v1() {
        return new HostComputeQuery(SchemaVersion.V1, flags, filter);
    }

    /**
     * The decoded filter as key to text value (empty when there is none). Throws {@link IllegalArgumentException}
     * when the filter string is not a JSON object.
     */
    public Map<String, String> filterEntries(ObjectMapper mapper) {
        Map<String, String> out = new LinkedHashMap<>();
        if (filter == null || filter.isBlank()) {
            return out;
        }
        JsonNode tree;
        try {
            tree = mapper.readTree(filter);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("query Filter is not JSON: " + e.getOriginalMessage());
        }
        if (!tree.isObject()) {
            throw new IllegalArgumentException("query Filter is not a JSON object: " + filter);
        }
        tree.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private static HostComputeQuery withFilter(String key, String value) {
        ObjectNode f = Settings.object().put(key, value);
        return new HostComputeQuery(SchemaVersion.V2, 0, f.toString());
    }
}
