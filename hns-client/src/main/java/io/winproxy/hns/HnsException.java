package io.winproxy.hns;

import java.util.Locale;

/**
 * A failed HNS call: the HRESULT, the operation that failed and the error record HNS returned (may be empty).
 * Classify with the predicates, which look at the code only, never at the localized message.
 */
public class HnsException extends RuntimeException {
    private final int hresult;
    private final String operation;
    private final String errorRecord;

    public HnsException(int hresult, String operation, String errorRecord) {
        super(format(hresult, operation, errorRecord));
        this.hresult = hresult;
        this.operation = operation;
        this.errorRecord = errorRecord == null ? "" : errorRecord;
    }

    public int hresult() {
        return hresult;
    }

    public String operation() {
        return operation;
    }

    public String errorRecord() {
        return errorRecord;
    }

    /** The symbolic name of the HRESULT, e.g. {@code HCN_E_PORT_ALREADY_EXISTS}, or its hex form when unknown. */
    public String hresultName() {
        return HResults.name(hresult);
    }

    public boolean isNotFound() {
        return HResults.isNotFound(hresult);
    }

    /**
     * The object, name, policy or port exists already: {@code ERROR_ALREADY_EXISTS} (a create with a caller-chosen ID
     * that is taken) or one of HCN's {@code ..._ALREADY_EXISTS} codes.
     */
    public boolean isAlreadyExists() {
        return HResults.isAlreadyExists(hresult);
    }

    /** HNS is stopped, restarting or unreachable ({@link HResults#isServiceUnavailable}); never "not found". */
    public boolean isServiceUnavailable() {
        return HResults.isServiceUnavailable(hresult);
    }

    public boolean isNotImplemented() {
        return HResults.isNotImplemented(hresult);
    }

    private static String format(int hresult, String operation, String errorRecord) {
        String base = String.format(Locale.ROOT, "%s failed: 0x%08X %s", operation, hresult, HResults.name(hresult));
        return errorRecord == null || errorRecord.isBlank() ? base : base + " " + errorRecord;
    }
}
