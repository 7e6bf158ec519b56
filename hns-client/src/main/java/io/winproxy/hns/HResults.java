package io.winproxy.hns;

import java.util.Locale;
import java.util.Map;

/** The HRESULTs HNS callers meet, by code (hcn-api.md section 4); the hns-client work completes the table. */
public final class HResults {
    public static final int S_OK = 0;
    public static final int E_NOTIMPL = 0x80004001;
    public static final int E_INVALIDARG = 0x80070057;
    public static final int ERROR_NOT_FOUND = 0x80070490;
    public static final int HCN_E_NETWORK_NOT_FOUND = 0x803B0001;
    public static final int HCN_E_ENDPOINT_NOT_FOUND = 0x803B0002;
    public static final int HCN_E_NETWORK_ALREADY_EXISTS = 0x803B0010;
    public static final int HCN_E_PORT_ALREADY_EXISTS = 0x803B0013;
    public static final int HCN_E_POLICY_ALREADY_EXISTS = 0x803B0012;
    public static final int HCN_E_INVALID_JSON_REFERENCE = 0x803B001C;
    public static final int HCN_E_INVALID_INTERNAL_PORT = 0x803B002D;

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(S_OK, "S_OK"),
            Map.entry(E_NOTIMPL, "E_NOTIMPL"),
            Map.entry(E_INVALIDARG, "E_INVALIDARG"),
            Map.entry(ERROR_NOT_FOUND, "ERROR_NOT_FOUND"),
            Map.entry(HCN_E_NETWORK_NOT_FOUND, "HCN_E_NETWORK_NOT_FOUND"),
            Map.entry(HCN_E_ENDPOINT_NOT_FOUND, "HCN_E_ENDPOINT_NOT_FOUND"),
            Map.entry(HCN_E_NETWORK_ALREADY_EXISTS, "HCN_E_NETWORK_ALREADY_EXISTS"),
            Map.entry(HCN_E_POLICY_ALREADY_EXISTS, "HCN_E_POLICY_ALREADY_EXISTS"),
            Map.entry(HCN_E_PORT_ALREADY_EXISTS, "HCN_E_PORT_ALREADY_EXISTS"),
            Map.entry(HCN_E_INVALID_JSON_REFERENCE, "HCN_E_INVALID_JSON_REFERENCE"),
            Map.entry(HCN_E_INVALID_INTERNAL_PORT, "HCN_E_INVALID_INTERNAL_PORT"));

    private HResults() {
    }

    public static String name(int hresult) {
        String name = NAMES.get(hresult);
        return name != null ? name : String.format(Locale.ROOT, "0x%08X", hresult);
    }

    public static boolean isNotFound(int hresult) {
        return hresult == ERROR_NOT_FOUND || hresult == HCN_E_NETWORK_NOT_FOUND || hresult == HCN_E_ENDPOINT_NOT_FOUND;
    }

    public static boolean isAlreadyExists(int hresult) {
        return hresult == HCN_E_NETWORK_ALREADY_EXISTS || hresult == HCN_E_POLICY_ALREADY_EXISTS
                || hresult == HCN_E_PORT_ALREADY_EXISTS;
    }

    public static boolean isNotImplemented(int hresult) {
        return hresult == E_NOTIMPL;
    }
}
