package io.winproxy.hns.windows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.sun.jna.WString;
import com.sun.jna.ptr.PointerByReference;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.model.HnsCallResponse;
import java.io.IOException;

/**
 * Tier 2 for {@link VmCompute}: calls {@code HNSCall}, reads and frees the response envelope in {@code finally},
 * and unwraps it. A negative HRESULT, a missing or unreadable envelope, or {@code "Success":false} is an
 * {@link HnsException} whose operation is {@code "HNSCall <METHOD> <path>"}; the envelope's {@code ErrorCode}, when
 * present, is the exception's code ({@code E_FAIL} otherwise). Every invocation, failed ones included, is reported
 * to the {@link NativeCallListener} as {@code "HNSCall"} just before the native call. Thread-safe.
 */
public final class VmComputeCalls extends NativeBinding {
    /** The export name reported to the {@link NativeCallListener}. */
    static final String HNS_CALL = "HNSCall";

    private final VmCompute library;

    public VmComputeCalls(VmCompute library, CoTaskMemFree coTaskMemFree, ObjectMapper mapper) {
        super(coTaskMemFree, mapper);
        this.library = library;
    }

    /** Sends one v1 request and returns the envelope's {@code Output} (a missing node when there is none). */
    public JsonNode call(String method, String path, String request) {
        String operation = "HNSCall " + method + " " + path;
        PointerByReference response = new PointerByReference();
        int hresult;
        String envelope;
        try {
            reporter.report(HNS_CALL);
            try {
                hresult = library.HNSCall(new WString(method), new WString(path), new WString(request), response);
            } catch (UnsatisfiedLinkError e) {
                throw new HnsException(HResults.E_NOTIMPL, operation, "export not found in vmcompute.dll");
            }
        } finally {
            envelope = results.take(response);
        }
        if (hresult < 0) {
            throw results.failure(operation, hresult, envelope);
        }
        if (envelope == null || envelope.isBlank()) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, "no response returned");
        }
        HnsCallResponse decoded;
        try {
            decoded = mapper.readValue(envelope, HnsCallResponse.class);
        } catch (IOException e) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, envelope.strip());
        }
        if (!decoded.success()) {
            throw results.failure(operation, HResults.S_OK, envelope);
        }
        return decoded.output() == null ? MissingNode.getInstance() : decoded.output();
    }

    /** The HNS version: {@code HNSCall("GET", "/globals/version", "")}, {@code Output = {"Major":N,"Minor":M}}. */
    public HnsVersion version() {
        JsonNode output = call("GET", "/globals/version", "");
        JsonNode major = output.path("Major");
        JsonNode minor = output.path("Minor");
        if (!major.canConvertToInt() || !minor.canConvertToInt()) {
            throw new HnsException(NativeResults.E_UNEXPECTED, "HNSCall GET /globals/version",
                    "no Major/Minor in the version output: " + output);
        }
        return new HnsVersion(major.asInt(), minor.asInt());
    }
}
