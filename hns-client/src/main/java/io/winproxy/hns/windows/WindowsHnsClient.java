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
import io.winproxy.hns.model.HcnJson;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.HostComputeQuery;
import io.winproxy.hns.model.SchemaVersion;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tier 3: the {@link HnsClient} over the real HNS, following hcsshim's call sequences (hcn-api.md section 1.4).
 *
 * <ul>
 *   <li>Lists: enumerate, then open, query (with the same query document) and close each id; an object that
 *       vanishes between enumerate and open or query ("not found") is skipped.</li>
 *   <li>Get by id or name: a filtered enumerate ({@code {"ID":..}}, {@code {"Name":..}}), then open/query/close;
 *       empty when nothing matches or the object vanished.</li>
 *   <li>Create: the zero GUID (HNS assigns the id), then query the new handle; the result, including the real
 *       {@code ID}, is what HNS stored. Endpoints are created on an opened network handle.</li>
 *   <li>Modify load balancer: open, {@code HcnModifyLoadBalancer} with the whole document, query, close; refused
 *       with {@code E_NOTIMPL} without calling HNS unless the version has the ModifyLoadbalancer feature (15.5 and
 *       later: on 15.4 the modify keeps the old backends, kubernetes#131466).</li>
 *   <li>Delete: by id, no handle.</li>
 * </ul>
 * Every handle is closed in {@code finally}. Ids that are not GUIDs are rejected with an
 * {@link IllegalArgumentException} naming the object. The client holds no native resources between calls and is
 * thread-safe; the version probe ({@code HNSCall GET /globals/version}) runs once and is cached once it succeeds.
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

    /**
     * A client over any library instances: the real DLLs ({@link #load()}) or a stand-in with the same exports.
     * {@code coTaskMemFree} must release the memory those libraries allocate.
     */
    public WindowsHnsClient(ComputeNetwork computeNetwork, VmCompute vmCompute, CoTaskMemFree coTaskMemFree) {
        this.mapper = HcnJson.newMapper();
        this.hcn = new HcnCalls(computeNetwork, coTaskMemFree, mapper);
        this.vmCompute = new VmComputeCalls(vmCompute, coTaskMemFree, mapper);
        this.queryAll = write(HostComputeQuery.all());
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
                logger.info("HNS version {}: {}", version, capabilities);
            }
            return capabilities;
        }
    }

    // Networks

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return networks(queryAll);
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("network name must not be empty");
        }
        return first(() -> networks(write(HostComputeQuery.byName(name))));
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        Guids.parse(id, "network");
        return first(() -> networks(write(HostComputeQuery.byId(stripBraces(id)))));
    }

    private List<HostComputeNetwork> networks(String query) {
        return hcn.enumerateNetworks(query).stream()
                .flatMap(id -> fetchNetwork(id, query).stream())
                .toList();
    }

    private Optional<HostComputeNetwork> fetchNetwork(String id, String query) {
        try (HcnHandle handle = hcn.openNetwork(id)) {
            return Optional.of(read(hcn.queryNetworkProperties(handle, query), HostComputeNetwork.class,
                    "HcnQueryNetworkProperties"));
        } catch (HnsException e) {
            return vanished(e, "network", id);
        }
    }

    // Endpoints

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        Guids.parse(networkId, "network");
        // Filter keys are v1 property names: the network of an endpoint is "VirtualNetwork" (hcsshim does the same).
        return endpoints(write(HostComputeQuery.endpointsOfNetwork(stripBraces(networkId))));
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        Guids.parse(id, "endpoint");
        return first(() -> endpoints(write(HostComputeQuery.byId(stripBraces(id)))));
    }

    private List<HostComputeEndpoint> endpoints(String query) {
        return hcn.enumerateEndpoints(query).stream()
                .flatMap(id -> fetchEndpoint(id, query).stream())
                .toList();
    }

    private Optional<HostComputeEndpoint> fetchEndpoint(String id, String query) {
        try (HcnHandle handle = hcn.openEndpoint(id)) {
            return Optional.of(read(hcn.queryEndpointProperties(handle, query), HostComputeEndpoint.class,
                    "HcnQueryEndpointProperties"));
        } catch (HnsException e) {
            return vanished(e, "endpoint", id);
        }
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        Guids.parse(networkId, "network");
        HostComputeEndpoint input = new HostComputeEndpoint(null, settings.name(), stripBraces(networkId),
                settings.policies(), settings.ipConfigurations(), settings.macAddress(), settings.flags(),
                schemaOrV2(settings.schemaVersion()));
        String json = write(input);
        try (HcnHandle network = hcn.openNetwork(networkId);
             HcnHandle endpoint = hcn.createEndpoint(network, null, json)) {
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
        return loadBalancers(queryAll);
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        Guids.parse(id, "load balancer");
        return first(() -> loadBalancers(write(HostComputeQuery.byId(stripBraces(id)))));
    }

    private List<HostComputeLoadBalancer> loadBalancers(String query) {
        return hcn.enumerateLoadBalancers(query).stream()
                .flatMap(id -> fetchLoadBalancer(id, query).stream())
                .toList();
    }

    private Optional<HostComputeLoadBalancer> fetchLoadBalancer(String id, String query) {
        try (HcnHandle handle = hcn.openLoadBalancer(id)) {
            return Optional.of(queryLoadBalancer(handle, query));
        } catch (HnsException e) {
            return vanished(e, "load balancer", id);
        }
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        String json = write(normalized(settings, null));
        try (HcnHandle handle = hcn.createLoadBalancer(null, json)) {
            return queryLoadBalancer(handle, queryAll);
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

    /** The document HNS gets: the given id (null on create, omitted from the JSON) and a v2 schema version. */
    private static HostComputeLoadBalancer normalized(HostComputeLoadBalancer settings, String id) {
        return new HostComputeLoadBalancer(id, settings.hostComputeEndpoints(), settings.sourceVip(),
                settings.frontendVips(), settings.portMappings(), schemaOrV2(settings.schemaVersion()),
                settings.flags());
    }

    // Helpers

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

    private static <T> Optional<T> vanished(HnsException e, String what, String id) {
        if (!e.isNotFound()) {
            throw e;
        }
        logger.debug("{} {} vanished between enumerate and query ({}), skipped", what, id, e.hresultName());
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
