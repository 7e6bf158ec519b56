package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * The envelope {@code vmcompute.dll!HNSCall} (the v1 API) wraps every response in:
 * {@code {"Success":bool,"Error":"...","Output":<object or array>}}. {@code Success:false} is a failure even when
 * the call's HRESULT was S_OK.
 */
public record HnsCallResponse(@JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("Success") boolean success,
                              @JsonProperty("Error") String error,
                              @JsonProperty("Output") JsonNode output) {
    public HnsCallResponse {
        error = error == null ? "" : error;
    }
}
