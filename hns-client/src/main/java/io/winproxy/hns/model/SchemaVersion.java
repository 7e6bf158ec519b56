package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * HCN schema version; {@code {2,0}} on every v2 input document, {@code {1,0}} asks for the v1 view. Both members are
 * always written ({@code "Minor":0} included), as hcsshim does.
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record SchemaVersion(@JsonProperty("Major") int major, @JsonProperty("Minor") int minor) {
    public static final SchemaVersion V2 = new SchemaVersion(2, 0);
    public static final SchemaVersion V1 = new SchemaVersion(1, 0);
}
