package io.winproxy.hns.windows;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.model.HcnErrorRecord;
import java.io.IOException;

/**
 * Tier 2 core shared by {@link HcnCalls} and {@link VmComputeCalls}: takes ownership of callee-allocated wide
 * strings (read, then {@code CoTaskMemFree} in {@code finally}) and turns a failed HRESULT or a non-empty error
 * record into an {@link HnsException}. Thread-safe.
 */
final class NativeResults {
    /** Used when a call succeeded but did not produce the document or handle its contract promises. */
    static final int E_UNEXPECTED = 0x8000FFFF;

    private final CoTaskMemFree coTaskMemFree;
    private final ObjectMapper mapper;

    NativeResults(CoTaskMemFree coTaskMemFree, ObjectMapper mapper) {
        this.coTaskMemFree = coTaskMemFree;
        this.mapper = mapper;
    }

    /**
     * Reads the wide string an out-parameter points to and frees it, exactly once: the reference is cleared, so a
     * second take returns null. Returns null when the callee returned no string.
     */
    String take(PointerByReference out) {
        Pointer memory = out.getValue();
        if (memory == null) {
            return null;
        }
        out.setValue(null);
        try {
            return memory.getWideString(0);
        } finally {
            coTaskMemFree.free(memory);
        }
    }

    /** Takes every out-parameter, even when one of them fails, then rethrows the first failure. */
    String[] takeAll(PointerByReference... outs) {
        String[] texts = new String[outs.length];
        RuntimeException failure = null;
        for (int i = 0; i < outs.length; i++) {
            try {
                texts[i] = take(outs[i]);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return texts;
    }

    /** A call failed when its HRESULT is negative or it returned a non-empty error record (hcsshim checkForErrors). */
    static boolean failed(int hresult, String errorRecord) {
        return hresult < 0 || (errorRecord != null && !errorRecord.isBlank());
    }

    /** Throws the {@link HnsException} for a failed call; returns normally otherwise. */
    void check(String operation, int hresult, String errorRecord) {
        if (failed(hresult, errorRecord)) {
            throw failure(operation, hresult, errorRecord);
        }
    }

    /**
     * The exception for a failed call. With hr 0 the code comes from the record's {@code ErrorCode} (an HRESULT
     * written as an unsigned decimal); {@code E_FAIL} when the record carries none.
     */
    HnsException failure(String operation, int hresult, String errorRecord) {
        int code = hresult < 0 ? hresult : errorCode(errorRecord);
        return new HnsException(code, operation, errorRecord == null ? "" : errorRecord.strip());
    }

    private int errorCode(String errorRecord) {
        try {
            HcnErrorRecord record = mapper.readValue(errorRecord, HcnErrorRecord.class);
            if (record != null && record.hresult() != HResults.S_OK) {
                return record.hresult();
            }
        } catch (IOException | RuntimeException e) {
            // Not an error record document: still a failure; the text stays verbatim in the exception.
        }
        return HResults.E_FAIL;
    }
}
