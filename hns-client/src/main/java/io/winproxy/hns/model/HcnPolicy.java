package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * A network or endpoint policy: {@code {"Type": "...", "Settings": {...}}}. Settings differ per type, so they are
 * kept as a JSON tree; typed accessors live on the owning documents.
 */
public record HcnPolicy(@JsonProperty("Type") String type, @JsonProperty("Settings") JsonNode settings) {
}
