package io.winproxy.hns.windows;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Pointer;
import com.sun.jna.WString;
import com.sun.jna.platform.win32.Guid;
import com.sun.jna.ptr.PointerByReference;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.NativeCallListener;
import java.io.IOException;
import java.util.List;
import java.util.function.ToIntFunction;

/**
 * Tier 2 of the HCN binding: one Java-friendly method per {@link ComputeNetwork} export. Each method passes every
 * out-parameter (including {@code ErrorRecord}), reads and frees every returned string in {@code finally}, and
 * throws {@link HnsException} when the HRESULT is negative or the error record is non-empty (even with
 * {@code S_OK}); the exception's operation is the export's name. Handles come back as {@link HcnHandle}s; a handle
 * that arrives together with an error is closed before the exception is thrown. A missing export becomes
 * {@code E_NOTIMPL}.
 *
 * <p>Ids are strings (GUIDs, braces optional; {@link IllegalArgumentException} otherwise); {@code null} as the id
 * of a create passes the zero GUID, so HNS assigns the id. Documents are passed and returned as JSON text.
 *
 * <p>Every invocation of an export, the {@code HcnCloseXxx} of each handle and failed calls included, is reported by
 * its export name to the {@link NativeCallListener} just before the native call is made; an id rejected before the
 * call (not a GUID, or a handle already closed) is not an invocation. Thread-safe; the listener may be replaced at
 * any time.
 */
public final class HcnCalls extends NativeBinding {
    private static final TypeReference<List<String>> ID_LIST = new TypeReference<>() {
    };

    private final ComputeNetwork library;

    public HcnCalls(ComputeNetwork library, CoTaskMemFree coTaskMemFree, ObjectMapper mapper) {
        super(coTaskMemFree, mapper);
        this.library = library;
    }

    // Networks

    public List<String> enumerateNetworks(String query) {
        return ids("HcnEnumerateNetworks", (out, error) -> library.HcnEnumerateNetworks(wide(query), out, error));
    }

    public HcnHandle createNetwork(String id, String settings) {
        Guid.GUID guid = guidOrZero(id, "network");
        return handle("HcnCreateNetwork", closer("HcnCloseNetwork", library::HcnCloseNetwork),
                (out, error) -> library.HcnCreateNetwork(guid, wide(settings), out, error));
    }

    public HcnHandle openNetwork(String id) {
        Guid.GUID guid = Guids.parse(id, "network");
        return handle("HcnOpenNetwork", closer("HcnCloseNetwork", library::HcnCloseNetwork),
                (out, error) -> library.HcnOpenNetwork(guid, out, error));
    }

    public void modifyNetwork(HcnHandle network, String settings) {
        Pointer handle = network.pointer();
        plain("HcnModifyNetwork", error -> library.HcnModifyNetwork(handle, wide(settings), error));
    }

    public String queryNetworkProperties(HcnHandle network, String query) {
        Pointer handle = network.pointer();
        return document("HcnQueryNetworkProperties",
                (out, error) -> library.HcnQueryNetworkProperties(handle, wide(query), out, error));
    }

    public void deleteNetwork(String id) {
        Guid.GUID guid = Guids.parse(id, "network");
        plain("HcnDeleteNetwork", error -> library.HcnDeleteNetwork(guid, error));
    }

    // Endpoints

    public List<String> enumerateEndpoints(String query) {
        return ids("HcnEnumerateEndpoints", (out, error) -> library.HcnEnumerateEndpoints(wide(query), out, error));
    }

    public HcnHandle createEndpoint(HcnHandle network, String id, String settings) {
        Guid.GUID guid = guidOrZero(id, "endpoint");
        Pointer networkHandle = network.pointer();
        return handle("HcnCreateEndpoint", closer("HcnCloseEndpoint", library::HcnCloseEndpoint),
                (out, error) -> library.HcnCreateEndpoint(networkHandle, guid, wide(settings), out, error));
    }

    public HcnHandle openEndpoint(String id) {
        Guid.GUID guid = Guids.parse(id, "endpoint");
        return handle("HcnOpenEndpoint", closer("HcnCloseEndpoint", library::HcnCloseEndpoint),
                (out, error) -> library.HcnOpenEndpoint(guid, out, error));
    }

    public void modifyEndpoint(HcnHandle endpoint, String settings) {
        Pointer handle = endpoint.pointer();
        plain("HcnModifyEndpoint", error -> library.HcnModifyEndpoint(handle, wide(settings), error));
    }

    public String queryEndpointProperties(HcnHandle endpoint, String query) {
        Pointer handle = endpoint.pointer();
        return document("HcnQueryEndpointProperties",
                (out, error) -> library.HcnQueryEndpointProperties(handle, wide(query), out, error));
    }

    public void deleteEndpoint(String id) {
        Guid.GUID guid = Guids.parse(id, "endpoint");
        plain("HcnDeleteEndpoint", error -> library.HcnDeleteEndpoint(guid, error));
    }

    // Load balancers

    public List<String> enumerateLoadBalancers(String query) {
        return ids("HcnEnumerateLoadBalancers",
                (out, error) -> library.HcnEnumerateLoadBalancers(wide(query), out, error));
    }

    public HcnHandle createLoadBalancer(String id, String settings) {
        Guid.GUID guid = guidOrZero(id, "load balancer");
        return handle("HcnCreateLoadBalancer", closer("HcnCloseLoadBalancer", library::HcnCloseLoadBalancer),
                (out, error) -> library.HcnCreateLoadBalancer(guid, wide(settings), out, error));
    }

    public HcnHandle openLoadBalancer(String id) {
        Guid.GUID guid = Guids.parse(id, "load balancer");
        return handle("HcnOpenLoadBalancer", closer("HcnCloseLoadBalancer", library::HcnCloseLoadBalancer),
                (out, error) -> library.HcnOpenLoadBalancer(guid, out, error));
    }

    /** Replaces the load balancer's settings with a whole {@code HostComputeLoadBalancer} document (HNS 15.5+). */
    public void modifyLoadBalancer(HcnHandle loadBalancer, String settings) {
        Pointer handle = loadBalancer.pointer();
        plain("HcnModifyLoadBalancer", error -> library.HcnModifyLoadBalancer(handle, wide(settings), error));
    }

    public String queryLoadBalancerProperties(HcnHandle loadBalancer, String query) {
        Pointer handle = loadBalancer.pointer();
        return document("HcnQueryLoadBalancerProperties",
                (out, error) -> library.HcnQueryLoadBalancerProperties(handle, wide(query), out, error));
    }

    public void deleteLoadBalancer(String id) {
        Guid.GUID guid = Guids.parse(id, "load balancer");
        plain("HcnDeleteLoadBalancer", error -> library.HcnDeleteLoadBalancer(guid, error));
    }

    // The three call shapes

    @FunctionalInterface
    private interface ErrorRecordCall {
        int invoke(PointerByReference errorRecord);
    }

    @FunctionalInterface
    private interface OutCall {
        int invoke(PointerByReference out, PointerByReference errorRecord);
    }

    private void plain(String operation, ErrorRecordCall call) {
        PointerByReference errorRecord = new PointerByReference();
        int hresult;
        String record;
        try {
            hresult = invoke(operation, () -> call.invoke(errorRecord));
        } finally {
            record = results.take(errorRecord);
        }
        results.check(operation, hresult, record);
    }

    private String document(String operation, OutCall call) {
        String document = optionalDocument(operation, call);
        if (document == null) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, "no document returned");
        }
        return document;
    }

    /** The out document of a successful call, or null when the callee returned none. */
    private String optionalDocument(String operation, OutCall call) {
        PointerByReference out = new PointerByReference();
        PointerByReference errorRecord = new PointerByReference();
        int hresult;
        String[] texts;
        try {
            hresult = invoke(operation, () -> call.invoke(out, errorRecord));
        } finally {
            texts = results.takeAll(out, errorRecord);
        }
        results.check(operation, hresult, texts[1]);
        return texts[0];
    }

    private List<String> ids(String operation, OutCall call) {
        // An empty enumeration is "[]"; a missing or blank list is read the same way.
        String list = optionalDocument(operation, call);
        if (list == null || list.isBlank()) {
            return List.of();
        }
        try {
            List<String> ids = mapper.readValue(list, ID_LIST);
            return ids == null ? List.of() : List.copyOf(ids);
        } catch (IOException e) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, "not a JSON array of ids: " + list);
        }
    }

    /** How a handle is released: a reported call of the close export. */
    private record Closer(String operation, ToIntFunction<Pointer> close) {
    }

    private Closer closer(String operation, ToIntFunction<Pointer> close) {
        return new Closer(operation, pointer -> {
            reporter.report(operation);
            return close.applyAsInt(pointer);
        });
    }

    private HcnHandle handle(String operation, Closer closer, OutCall call) {
        PointerByReference out = new PointerByReference();
        PointerByReference errorRecord = new PointerByReference();
        int hresult;
        String record;
        try {
            hresult = invoke(operation, () -> call.invoke(out, errorRecord));
        } finally {
            record = results.take(errorRecord);
        }
        Pointer pointer = out.getValue();
        HcnHandle handle = pointer == null ? null : new HcnHandle(closer.operation(), pointer, closer.close());
        if (NativeResults.failed(hresult, record)) {
            if (handle != null) {
                handle.close();
            }
            throw results.failure(operation, hresult, record);
        }
        if (handle == null) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, "no handle returned");
        }
        return handle;
    }

    @FunctionalInterface
    private interface NativeCall {
        int call();
    }

    private int invoke(String operation, NativeCall call) {
        reporter.report(operation);
        try {
            return call.call();
        } catch (UnsatisfiedLinkError e) {
            throw new HnsException(HResults.E_NOTIMPL, operation, "export not found in computenetwork.dll");
        }
    }

    private static Guid.GUID guidOrZero(String id, String what) {
        return id == null ? Guids.zero() : Guids.parse(id, what);
    }

    private static WString wide(String text) {
        return text == null ? null : new WString(text);
    }
}
