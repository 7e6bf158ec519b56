package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The error record HCN calls return through their {@code ErrorRecord} out-parameter:
 * {@code {"Success":false,"Error":"<localized message>","ErrorCode":<HRESULT as unsigned decimal>}}. The message is
 * localized; classify by {@link #hresult()} only.
 */
public record HcnErrorRecord(@JsonInclude(JsonInclude.Include.ALWAYS) @JsonProperty("Success") boolean success,
                             @JsonProperty("Error") String error,
                             @JsonProperty("ErrorCode") long errorCode) {
    public HcnErrorRecord {
        error = error == null ? "" : error;
    }

    /** A failure record for {@code hresult} with {@code message}. */
    public static HcnErrorRecord failure(int hresult, String message) {
        return new HcnErrorRecord(false, message, Integer.toUnsignedLong(hresult));
    }

    /** The error code as a (signed) HRESULT. */
    public int hresult() {
        return (int) errorCode;
    }
}
