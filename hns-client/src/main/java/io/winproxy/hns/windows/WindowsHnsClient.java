package io.winproxy.hns.windows;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.jna.Native;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.HnsException;
import io.winproxy.hns.HnsFeatures;
import io.winproxy.hns.HnsVersion;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.HostComputeQuery;
import io.winproxy.hns.model.SchemaVersion;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tier 3: the {@link HnsClient} over the real HNS. The native HCN call is the unit of cost, so each method makes the
 * fewest calls its result needs (the sequences below, by export name, are also what a {@link NativeCallListener}
 * sees; the emulator makes the same ones):
 *
 * <ul>
 *   <li>Lists: {@code HcnEnumerateXxx}, then per id {@code HcnOpenXxx}, {@code HcnQueryXxxProperties} (with the same
 *       query document) and {@code HcnCloseXxx}; an object that vanishes between enumerate and open or query ("not
 *       found") is skipped. The id lists ({@link #listLoadBalancerIds()}, {@link #listEndpointIds(String)}) are the
 *       enumerate alone.</li>
 *   <li>Load balancer or endpoint by id: {@code HcnOpenXxx} by GUID, {@code HcnQueryXxxProperties},
 *       {@code HcnCloseXxx}; empty when HNS answers the open (or the query) "not found", by HRESULT. Networks by id
 *       or name: a filtered enumerate ({@code {"ID":..}}, {@code {"Name":..}}), then open/query/close.</li>
 *   <li>Create load balancer: {@code HcnCreateLoadBalancer}, {@code HcnCloseLoadBalancer}. With a caller-chosen id
 *       in the settings, that GUID is the call's {@code Id} parameter (the HCN reference: "Id for the new load
 *       balancer") and the result is the settings sent with that id, not read back; without one, the zero GUID
 *       lets HNS assign the id and {@code HcnQueryLoadBalancerProperties} reads the new object before the close.</li>
 *   <li>Create endpoint: on a network handle, {@code HcnCreateEndpoint}, (query only without an id),
 *       {@code HcnCloseEndpoint}; {@link #createEndpoint(String, HostComputeEndpoint)} opens and closes the network
 *       around it, a {@link NetworkSession} from {@link #openNetwork(String)} shares one {@code HcnOpenNetwork} /
 *       {@code HcnCloseNetwork} between many creates.</li>
 *   <li>Modify load balancer: {@code HcnOpenLoadBalancer}, {@code HcnModifyLoadBalancer} with the whole document,
 *       {@code HcnQueryLoadBalancerProperties}, {@code HcnCloseLoadBalancer}; refused client-side with
 *       {@code E_NOTIMPL} unless the version has the ModifyLoadbalancer feature (15.5 and later: on 15.4 the modify
 *       keeps the old backends, kubernetes#131466).</li>
 *   <li>Delete: {@code HcnDeleteXxx} by id, no handle.</li>
 *   <li>The version probe ({@code HNSCall GET /globals/version}) runs once and is cached once it succeeds.</li>
 * </ul>
 * Every handle is closed in {@code finally}, also when a call fails. Ids that are not GUIDs (lookups, deletes, and
 * a caller-chosen id in create settings) are rejected with an {@link IllegalArgumentException} naming the object,
 * before any native call. The client holds no native resources between calls (a {@link NetworkSession} holds its
 * network handle until closed) and is thread-safe.
 */
public final class WindowsHnsClient implements HnsClient {
    private static final Logger logger = LoggerFactory.getLogger(WindowsHnsClient.class);

    private final HcnCalls hcn;
    private final VmComputeCalls vmCompute;
    private final ObjectMapper mapper;
    /** {@code {"SchemaVersion":{"Major":2,"Minor":0}}}: every object, standard properties. */
    private final String queryAll;
    private final Object probeLock = new Object();
    private volatile HnsCapabilities capabilities;
    private final Kind<HostComputeNetwork> networks;
    private final Kind<HostComputeEndpoint> endpoints;
    private final Kind<HostComputeLoadBalancer> loadBalancers;

    /**
     * How one kind of object is listed and read: {@code enumerate} with a query document, {@code open} by id and
     * {@code query} an open handle with a query document; {@code noun} names the kind in messages and logs.
     */
    private record Kind<T>(String noun, Function<String, List<String>> enumerate, Function<String, HcnHandle> open,
                           BiFunction<HcnHandle, String, T> query) {
    }

    /**
     * A client over any library instances: the real DLLs ({@link #load()}) or a stand-in with the same exports.
     * {@code coTaskMemFree} must release the memory those libraries allocate.
     */
    public WindowsHnsClient(ComputeNetwork computeNetwork, VmCompute vmCompute, CoTaskMemFree coTaskMemFree) {
        this.mapper = HcnJson.newMapper();
        this.hcn = new HcnCalls(computeNetwork, coTaskMemFree, mapper);
        this.vmCompute = new VmComputeCalls(vmCompute, coTaskMemFree, mapper);
        this.queryAll = write(HostComputeQuery.all());
        this.networks = new Kind<>("network", hcn::enumerateNetworks, hcn::openNetwork,
                (handle, query) -> read(hcn.queryNetworkProperties(handle, query), HostComputeNetwork.class,
                        "HcnQueryNetworkProperties"));
        this.endpoints = new Kind<>("endpoint", hcn::enumerateEndpoints, hcn::openEndpoint, this::queryEndpoint);
        this.loadBalancers = new Kind<>("load balancer", hcn::enumerateLoadBalancers, hcn::openLoadBalancer,
                this::queryLoadBalancer);
    }

    /**
     * A client over {@code computenetwork.dll}, {@code vmcompute.dll} and {@code ole32.dll!CoTaskMemFree}.
     *
     * @throws IllegalStateException when the libraries cannot be loaded (not Windows, or HCN not installed)
     */
    public static WindowsHnsClient load() {
        try {
            ComputeNetwork computeNetwork = Native.load("computenetwork", ComputeNetwork.class);
            VmCompute vmCompute = Native.load("vmcompute", VmCompute.class);
            return new WindowsHnsClient(computeNetwork, vmCompute, CoTaskMemFree.ole32());
        } catch (LinkageError e) {
            throw new IllegalStateException("cannot load the Host Networking Service libraries (computenetwork.dll, "
                    + "vmcompute.dll, ole32.dll; Windows Server 2019 or later with the Containers feature): "
                    + e.getMessage(), e);
        }
    }

    @Override
    public HnsCapabilities capabilities() {
        HnsCapabilities cached = capabilities;
        if (cached != null) {
            return cached;
        }
        synchronized (probeLock) {
            if (capabilities == null) {
                HnsVersion version = vmCompute.version();
                capabilities = HnsFeatures.forVersion(version);
                logger.atInfo().setMessage("HNS version").addKeyValue("version", version)
                        .addKeyValue("capabilities", capabilities).log();
            }
            return capabilities;
        }
    }

    /** Reports every export invocation of this client (HCN and {@code HNSCall}) from now on to {@code listener}. */
    @Override
    public void setNativeCallListener(NativeCallListener listener) {
        hcn.setNativeCallListener(listener);
        vmCompute.setNativeCallListener(listener);
    }

    // Networks

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return list(networks, queryAll);
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("network name must not be empty");
        }
        return first(() -> list(networks, write(HostComputeQuery.byName(name))));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        Guids.parse(id, "network");
        return first(() -> list(networks, write(HostComputeQuery.byId(stripBraces(id)))));
    }

    // Endpoints

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        Guids.parse(networkId, "network");
        // Filter keys are v1 property names: the network of an endpoint is "VirtualNetwork" (hcsshim does the same).
        return list(endpoints, write(HostComputeQuery.endpointsOfNetwork(stripBraces(networkId))));
    }

    @Override
    public List<String> listEndpointIds(String networkId) {
        Guids.parse(networkId, "network");
        return hcn.enumerateEndpoints(write(HostComputeQuery.endpointsOfNetwork(stripBraces(networkId))));
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        return byId(endpoints, id);
    }

    private HostComputeEndpoint queryEndpoint(HcnHandle handle, String query) {
        return read(hcn.queryEndpointProperties(handle, query), HostComputeEndpoint.class,
                "HcnQueryEndpointProperties");
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        callerId(settings.id(), "endpoint");
        try (NetworkSession session = openNetwork(networkId)) {
            return session.createEndpoint(settings);
        }
    }

    /**
     * Opens the network once ({@code HcnOpenNetwork}); the session's creates run on that handle and its
     * {@link NetworkSession#close()} calls {@code HcnCloseNetwork} once, logging (at debug) instead of throwing.
     * Not found when the network does not exist.
     */
    @Override
    public NetworkSession openNetwork(String networkId) {
        Guids.parse(networkId, "network");
        return new HcnNetworkSession(networkId, hcn.openNetwork(networkId), this::createEndpointOn);
    }

    private HostComputeEndpoint createEndpointOn(HcnHandle network, String networkId, HostComputeEndpoint settings) {
        String id = callerId(settings.id(), "endpoint");
        HostComputeEndpoint input = new HostComputeEndpoint(null, settings.name(), stripBraces(networkId),
                settings.policies(), settings.ipConfigurations(), settings.macAddress(), settings.flags(),
                schemaOrV2(settings.schemaVersion()));
        String json = write(input);
        try (HcnHandle endpoint = hcn.createEndpoint(network, id, json)) {
            if (id != null) {
                return input.withId(id);
            }
            return withId(read(hcn.queryEndpointProperties(endpoint, queryAll), HostComputeEndpoint.class,
                    "HcnQueryEndpointProperties"), HostComputeEndpoint::id, "HcnQueryEndpointProperties");
        }
    }

    @Override
    public void deleteEndpoint(String id) {
        hcn.deleteEndpoint(id);
    }

    // Load balancers

    @Override
    public List<String> listLoadBalancerIds() {
        return hcn.enumerateLoadBalancers(queryAll);
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return list(loadBalancers, queryAll);
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        return byId(loadBalancers, id);
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        String id = callerId(settings.id(), "load balancer");
        HostComputeLoadBalancer input = normalized(settings, null);
        String json = write(input);
        try (HcnHandle handle = hcn.createLoadBalancer(id, json)) {
            return id != null ? input.withId(id) : queryLoadBalancer(handle, queryAll);
        }
    }

    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        Guids.parse(id, "load balancer");
        HnsCapabilities features = capabilities();
        if (!features.modifyLoadBalancer()) {
            throw new HnsException(HResults.E_NOTIMPL, "HcnModifyLoadBalancer",
                    "HNS " + features.version() + " cannot modify load balancers (needs 15.5); delete and create");
        }
        String json = write(normalized(settings, stripBraces(id)));
        try (HcnHandle handle = hcn.openLoadBalancer(id)) {
            hcn.modifyLoadBalancer(handle, json);
            return queryLoadBalancer(handle, queryAll);
        }
    }

    @Override
    public void deleteLoadBalancer(String id) {
        hcn.deleteLoadBalancer(id);
    }

    private HostComputeLoadBalancer queryLoadBalancer(HcnHandle handle, String query) {
        return withId(read(hcn.queryLoadBalancerProperties(handle, query), HostComputeLoadBalancer.class,
                "HcnQueryLoadBalancerProperties"), HostComputeLoadBalancer::id, "HcnQueryLoadBalancerProperties");
    }

    /**
     * The document HNS gets: the given id (null on create, omitted from the JSON: a caller-chosen id travels as the
     * call's {@code Id} parameter) and a v2 schema version.
     */
    private static HostComputeLoadBalancer normalized(HostComputeLoadBalancer settings, String id) {
        return new HostComputeLoadBalancer(id, settings.hostComputeEndpoints(), settings.sourceVip(),
                settings.frontendVips(), settings.portMappings(), schemaOrV2(settings.schemaVersion()),
                settings.flags());
    }

    // Helpers

    /**
     * A direct lookup by GUID: open, then query the handle for every property, then close. Empty when HNS answers the
     * open or the query "not found" (the object does not exist, or was deleted in between); any other failure is
     * thrown.
     */
    private <T> Optional<T> byId(Kind<T> kind, String id) {
        Guids.parse(id, kind.noun());
        HcnHandle handle;
        try {
            handle = kind.open().apply(id);
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
        try (handle) {
            return Optional.of(kind.query().apply(handle, queryAll));
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The caller-chosen id of create settings (braces stripped), or null when there is none (null or blank).
     *
     * @throws IllegalArgumentException when the id is not a GUID
     */
    private static String callerId(String id, String what) {
        if (id == null || id.isBlank()) {
            return null;
        }
        Guids.parse(id, what);
        return stripBraces(id);
    }

    /** The first object a filtered lookup finds; empty when none matches or HNS answers the filter "not found". */
    private static <T> Optional<T> first(Supplier<List<T>> lookup) {
        try {
            return lookup.get().stream().findFirst();
        } catch (HnsException e) {
            if (e.isNotFound()) {
                return Optional.empty();
            }
            throw e;
        }
    }

    /**
     * The objects an enumerate with {@code query} names, each opened, queried with the same document and closed in
     * turn; one that HNS answers "not found" for was deleted since the enumerate and is skipped. Any other failure is
     * thrown.
     */
    private static <T> List<T> list(Kind<T> kind, String query) {
        return kind.enumerate().apply(query).stream().flatMap(id -> {
            try (HcnHandle handle = kind.open().apply(id)) {
                return Optional.of(kind.query().apply(handle, query)).stream();
            } catch (HnsException e) {
                return WindowsHnsClient.<T>vanished(e, kind.noun(), id).stream();
            }
        }).toList();
    }

    private static <T> Optional<T> vanished(HnsException e, String what, String id) {
        if (!e.isNotFound()) {
            throw e;
        }
        logger.atDebug().setMessage("Object vanished between enumerate and query, skipped").addKeyValue("kind", what)
                .addKeyValue("id", id).addKeyValue("hresult", e.hresultName()).log();
        return Optional.empty();
    }

    private <T> T read(String json, Class<T> type, String operation) {
        try {
            return mapper.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation,
                    "unreadable " + type.getSimpleName() + " document: " + json);
        }
    }

    private static <T> T withId(T document, Function<T, String> id, String operation) {
        if (id.apply(document) == null || id.apply(document).isBlank()) {
            throw new HnsException(NativeResults.E_UNEXPECTED, operation, "the properties carry no ID");
        }
        return document;
    }

    private String write(Object document) {
        try {
            return mapper.writeValueAsString(document);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static SchemaVersion schemaOrV2(SchemaVersion version) {
        return version == null ? SchemaVersion.V2 : version;
    }

    private static String stripBraces(String id) {
        return id.startsWith("{") && id.endsWith("}") ? id.substring(1, id.length() - 1) : id;
    }
}
