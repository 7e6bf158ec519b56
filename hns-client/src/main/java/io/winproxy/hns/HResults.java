package io.winproxy.hns;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HRESULTs HNS callers meet, by code (hcn-api.md section 4): the generic Win32/COM codes plus the full HCN
 * facility table 0x803B0001..0x803B0037. Classify failures with the predicates, which look at the code only, never
 * at the (localized) message. The messages (hresult-messages.properties beside this class, one per constant) are
 * English summaries for display, not what HNS prints.
 */
public final class HResults {
    public static final int S_OK = 0;
    public static final int E_NOTIMPL = 0x80004001;
    public static final int E_FAIL = 0x80004005;
    public static final int E_ACCESSDENIED = 0x80070005;
    /** E_OUTOFMEMORY: HNS (or VFP below it) could not allocate what the call needs. */
    public static final int E_OUTOFMEMORY = 0x8007000E;
    public static final int E_INVALIDARG = 0x80070057;
    public static final int ERROR_NOT_FOUND = 0x80070490;
    /**
     * HRESULT_FROM_WIN32(ERROR_ALREADY_EXISTS): an object with the caller-chosen ID passed to a create already exists
     * ("Cannot create a file when that file already exists").
     */
    public static final int ERROR_ALREADY_EXISTS = 0x800700B7;
    /** HRESULT_FROM_WIN32(ERROR_SERVICE_NOT_ACTIVE): HNS is stopped or restarting. */
    public static final int ERROR_SERVICE_NOT_ACTIVE = 0x80070426;
    /** RPC_S_SERVER_UNAVAILABLE as an HRESULT: the HNS RPC endpoint went away mid-call. */
    public static final int RPC_S_SERVER_UNAVAILABLE = 0x800706BA;
    /** RPC_S_SERVER_TOO_BUSY as an HRESULT: HNS is overloaded (typically while it starts). */
    public static final int RPC_S_SERVER_TOO_BUSY = 0x800706BB;
    /**
     * RPC_S_CALL_FAILED as an HRESULT: the call reached HNS and then failed, so a create or delete may have been
     * carried out.
     */
    public static final int RPC_S_CALL_FAILED = 0x800706BE;
    /** RPC_S_CALL_FAILED_DNE as an HRESULT: the call failed and did not execute. */
    public static final int RPC_S_CALL_FAILED_DNE = 0x800706BF;
    /** RPC_S_UNKNOWN_IF as an HRESULT: the HNS interface is not registered (the service is starting or stopped). */
    public static final int RPC_S_UNKNOWN_IF = 0x800706B5;
    /** EPT_S_NOT_REGISTERED as an HRESULT: no HNS endpoint in the RPC endpoint mapper (the service is stopped). */
    public static final int EPT_S_NOT_REGISTERED = 0x800706D9;
    /** RPC_E_DISCONNECTED: the object invoked has disconnected from its clients (the service went away). */
    public static final int RPC_E_DISCONNECTED = 0x80010108;
    public static final int HCN_E_NETWORK_NOT_FOUND = 0x803B0001;
    public static final int HCN_E_ENDPOINT_NOT_FOUND = 0x803B0002;
    public static final int HCN_E_LAYER_NOT_FOUND = 0x803B0003;
    public static final int HCN_E_SWITCH_NOT_FOUND = 0x803B0004;
    public static final int HCN_E_SUBNET_NOT_FOUND = 0x803B0005;
    public static final int HCN_E_ADAPTER_NOT_FOUND = 0x803B0006;
    public static final int HCN_E_PORT_NOT_FOUND = 0x803B0007;
    public static final int HCN_E_POLICY_NOT_FOUND = 0x803B0008;
    public static final int HCN_E_VFP_PORTSETTING_NOT_FOUND = 0x803B0009;
    public static final int HCN_E_INVALID_NETWORK = 0x803B000A;
    public static final int HCN_E_INVALID_NETWORK_TYPE = 0x803B000B;
    public static final int HCN_E_INVALID_ENDPOINT = 0x803B000C;
    public static final int HCN_E_INVALID_POLICY = 0x803B000D;
    public static final int HCN_E_INVALID_POLICY_TYPE = 0x803B000E;
    public static final int HCN_E_INVALID_REMOTE_ENDPOINT_OPERATION = 0x803B000F;
    public static final int HCN_E_NETWORK_ALREADY_EXISTS = 0x803B0010;
    public static final int HCN_E_LAYER_ALREADY_EXISTS = 0x803B0011;
    public static final int HCN_E_POLICY_ALREADY_EXISTS = 0x803B0012;
    public static final int HCN_E_PORT_ALREADY_EXISTS = 0x803B0013;
    public static final int HCN_E_ENDPOINT_ALREADY_ATTACHED = 0x803B0014;
    public static final int HCN_E_REQUEST_UNSUPPORTED = 0x803B0015;
    public static final int HCN_E_MAPPING_NOT_SUPPORTED = 0x803B0016;
    public static final int HCN_E_DEGRADED_OPERATION = 0x803B0017;
    public static final int HCN_E_SHARED_SWITCH_MODIFICATION = 0x803B0018;
    public static final int HCN_E_GUID_CONVERSION_FAILURE = 0x803B0019;
    public static final int HCN_E_REGKEY_FAILURE = 0x803B001A;
    public static final int HCN_E_INVALID_JSON = 0x803B001B;
    public static final int HCN_E_INVALID_JSON_REFERENCE = 0x803B001C;
    public static final int HCN_E_ENDPOINT_SHARING_DISABLED = 0x803B001D;
    public static final int HCN_E_INVALID_IP = 0x803B001E;
    public static final int HCN_E_SWITCH_EXTENSION_NOT_FOUND = 0x803B001F;
    public static final int HCN_E_MANAGER_STOPPED = 0x803B0020;
    public static final int GCN_E_MODULE_NOT_FOUND = 0x803B0021;
    public static final int GCN_E_NO_REQUEST_HANDLERS = 0x803B0022;
    public static final int GCN_E_REQUEST_UNSUPPORTED = 0x803B0023;
    public static final int GCN_E_RUNTIMEKEYS_FAILED = 0x803B0024;
    public static final int GCN_E_NETADAPTER_TIMEOUT = 0x803B0025;
    public static final int GCN_E_NETADAPTER_NOT_FOUND = 0x803B0026;
    public static final int GCN_E_NETCOMPARTMENT_NOT_FOUND = 0x803B0027;
    public static final int GCN_E_NETINTERFACE_NOT_FOUND = 0x803B0028;
    public static final int GCN_E_DEFAULTNAMESPACE_EXISTS = 0x803B0029;
    public static final int HCN_E_ICS_DISABLED = 0x803B002A;
    public static final int HCN_E_ENDPOINT_NAMESPACE_ALREADY_EXISTS = 0x803B002B;
    public static final int HCN_E_ENTITY_HAS_REFERENCES = 0x803B002C;
    public static final int HCN_E_INVALID_INTERNAL_PORT = 0x803B002D;
    public static final int HCN_E_NAMESPACE_ATTACH_FAILED = 0x803B002E;
    public static final int HCN_E_ADDR_INVALID_OR_RESERVED = 0x803B002F;
    public static final int HCN_E_INVALID_PREFIX = 0x803B0030;
    public static final int HCN_E_OBJECT_USED_AFTER_UNLOAD = 0x803B0031;
    public static final int HCN_E_INVALID_SUBNET = 0x803B0032;
    public static final int HCN_E_INVALID_IP_SUBNET = 0x803B0033;
    public static final int HCN_E_ENDPOINT_NOT_ATTACHED = 0x803B0034;
    public static final int HCN_E_ENDPOINT_NOT_LOCAL = 0x803B0035;
    public static final int HCN_E_INTERFACEPARAMETERS_ALREADY_APPLIED = 0x803B0036;
    public static final int HCN_E_VFP_NOT_ALLOWED = 0x803B0037;

    /** Every constant of this class by code, with its name and the message of hresult-messages.properties. */
    private static final Map<Integer, Entry> TABLE = table();

    private HResults() {
    }

    /** The symbolic name of an HRESULT, e.g. {@code HCN_E_PORT_ALREADY_EXISTS}, or its hex form when unknown. */
    public static String name(int hresult) {
        Entry e = TABLE.get(hresult);
        return e != null ? e.name() : hex(hresult);
    }

    /** An English summary of the HRESULT's meaning, empty when the code is not in the table. */
    public static Optional<String> message(int hresult) {
        return Optional.ofNullable(TABLE.get(hresult)).map(Entry::message);
    }

    /** Every failure code this class names (all its constants but {@code S_OK}), in declaration order. */
    public static List<Integer> failureCodes() {
        return TABLE.keySet().stream().filter(HResults::failed).toList();
    }

    /** The code of a symbolic name ({@code "HCN_E_PORT_ALREADY_EXISTS"}, case-insensitive), if known. */
    public static Optional<Integer> byName(String name) {
        if (name == null) {
            return Optional.empty();
        }
        for (Entry e : TABLE.values()) {
            if (e.name().equalsIgnoreCase(name.trim())) {
                return Optional.of(e.code());
            }
        }
        return Optional.empty();
    }

    /** {@code 0x803B001C}: the unsigned upper-case hex form of an HRESULT. */
    public static String hex(int hresult) {
        return String.format(Locale.ROOT, "0x%08X", hresult);
    }

    /** {@code 0x803B001C HCN_E_INVALID_JSON_REFERENCE}, or just the hex form when the code is unknown. */
    public static String describe(int hresult) {
        Entry e = TABLE.get(hresult);
        return e != null ? hex(hresult) + " " + e.name() : hex(hresult);
    }

    /**
     * Parses {@code 0x803B0013}, {@code 803b0013}, a signed or unsigned decimal ({@code 2151350291}) or a symbolic
     * name. Throws {@link IllegalArgumentException} with a one-line message otherwise.
     */
    public static int parse(String text) {
        String t = text == null ? "" : text.trim();
        Optional<Integer> named = byName(t);
        if (named.isPresent()) {
            return named.get();
        }
        try {
            if (t.startsWith("0x") || t.startsWith("0X")) {
                return (int) Long.parseLong(t.substring(2), 16);
            }
            if (t.matches("-?[0-9]+")) {
                return (int) Long.parseLong(t);
            }
            return (int) Long.parseLong(t, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an HRESULT: '" + t + "'");
        }
    }

    public static boolean failed(int hresult) {
        return hresult < 0;
    }

    /** Element not found, or HCN's typed network/endpoint not-found codes (hcsshim misses the latter). */
    public static boolean isNotFound(int hresult) {
        return hresult == ERROR_NOT_FOUND || hresult == HCN_E_NETWORK_NOT_FOUND || hresult == HCN_E_ENDPOINT_NOT_FOUND;
    }

    /** An object, name, policy or port that a create or add asked for exists already (by ID or by identity). */
    public static boolean isAlreadyExists(int hresult) {
        return hresult == ERROR_ALREADY_EXISTS || hresult == HCN_E_NETWORK_ALREADY_EXISTS || hresult == HCN_E_LAYER_ALREADY_EXISTS
                || hresult == HCN_E_POLICY_ALREADY_EXISTS || hresult == HCN_E_PORT_ALREADY_EXISTS;
    }

    public static boolean isNotImplemented(int hresult) {
        return hresult == E_NOTIMPL;
    }

    /** The request itself is wrong (retrying the same document cannot succeed). */
    public static boolean isInvalidArgument(int hresult) {
        return hresult == E_INVALIDARG || hresult == HCN_E_INVALID_POLICY || hresult == HCN_E_INVALID_POLICY_TYPE
                || hresult == HCN_E_INVALID_JSON || hresult == HCN_E_INVALID_JSON_REFERENCE;
    }

    /**
     * HNS is stopping, restarting or unreachable (the service-stopped codes and the RPC transport failures): the
     * call says nothing about the object it named. Keep state and retry later; never read it as "not found".
     */
    public static boolean isServiceUnavailable(int hresult) {
        return hresult == HCN_E_MANAGER_STOPPED || hresult == ERROR_SERVICE_NOT_ACTIVE
                || hresult == RPC_S_SERVER_UNAVAILABLE || hresult == RPC_S_SERVER_TOO_BUSY
                || hresult == RPC_S_CALL_FAILED || hresult == RPC_S_CALL_FAILED_DNE || hresult == RPC_S_UNKNOWN_IF
                || hresult == EPT_S_NOT_REGISTERED || hresult == RPC_E_DISCONNECTED;
    }

    /**
     * The call reached HNS and its outcome is unknown ({@code RPC_S_CALL_FAILED}, {@code RPC_E_DISCONNECTED}): a
     * create may have created its object, a delete may have deleted it.
     */
    public static boolean mayHaveCompleted(int hresult) {
        return hresult == RPC_S_CALL_FAILED || hresult == RPC_E_DISCONNECTED;
    }

    private record Entry(int code, String name, String message) {
    }

    /**
     * Reads the table from this class's {@code public static final int} constants and their messages; a constant
     * without a message, or a message naming no constant, fails the class's initialization.
     */
    private static Map<Integer, Entry> table() {
        Properties messages = new Properties();
        try (InputStream in = HResults.class.getResourceAsStream("hresult-messages.properties")) {
            if (in == null) {
                throw new IllegalStateException("hresult-messages.properties missing beside HResults");
            }
            messages.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<Integer, Entry> m = new LinkedHashMap<>();
        for (Field f : HResults.class.getFields()) {
            if (f.getType() != int.class || !Modifier.isStatic(f.getModifiers())) {
                continue;
            }
            String message = messages.getProperty(f.getName());
            if (message == null) {
                throw new IllegalStateException("no message for " + f.getName() + " in hresult-messages.properties");
            }
            try {
                int code = f.getInt(null);
                m.put(code, new Entry(code, f.getName(), message));
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        Set<String> unknown = new TreeSet<>(messages.stringPropertyNames());
        m.values().forEach(e -> unknown.remove(e.name()));
        if (!unknown.isEmpty()) {
            throw new IllegalStateException("hresult-messages.properties names no constant: " + unknown);
        }
        return Collections.unmodifiableMap(m);
    }
}
