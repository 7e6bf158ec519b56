package io.winproxy.hns.windows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * {@code HostComputeQuery} documents (hcn-api.md section 2.2): always a v2 {@code SchemaVersion}; a {@code Filter}
 * is a JSON object encoded as a string inside the query (double-encoded), keyed by v1 property names.
 */
final class HcnQueries {
    /** Every object, standard properties. */
    static final String ALL = "{\"SchemaVersion\":{\"Major\":2,\"Minor\":0}}";

    private final ObjectMapper mapper;

    HcnQueries(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    /** A query for the objects whose property {@code key} equals {@code value}, e.g. {@code ID}, {@code Name}. */
    String filter(String key, String value) {
        try {
            ObjectNode query = mapper.createObjectNode();
            ObjectNode schema = query.putObject("SchemaVersion");
            schema.put("Major", 2);
            schema.put("Minor", 0);
            query.put("Filter", mapper.writeValueAsString(Map.of(key, value)));
            return mapper.writeValueAsString(query);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }
}
