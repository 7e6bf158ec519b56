package io.winproxy.hns;

import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.List;
import java.util.Optional;

/**
 * The port to the Host Networking Service. Implemented by the JNA binding to {@code computenetwork.dll} on Windows
 * and by the in-memory emulator everywhere else.
 *
 * <p>Every method may throw {@link HnsException}; callers classify it by HRESULT ({@link HnsException#isNotFound()}
 * and friends), never by message. Lookups of a single object return {@link Optional#empty()} when HNS reports
 * "not found". Implementations are thread-safe, but winproxy performs all writes from one sync thread.
 */
public interface HnsClient {

    /** HNS version and the features it enables; probed once and cached. */
    HnsCapabilities capabilities();

    List<HostComputeNetwork> listNetworks();

    Optional<HostComputeNetwork> getNetworkByName(String name);

    Optional<HostComputeNetwork> getNetworkById(String id);

    /** Every endpoint, local and remote, of one network. */
    List<HostComputeEndpoint> listEndpoints(String networkId);

    /**
     * The IDs of every endpoint of one network: one {@code HcnEnumerateEndpoints} call with the network filter, no
     * document read. The cheap way to see which endpoints exist.
     */
    default List<String> listEndpointIds(String networkId) {
        return listEndpoints(networkId).stream().map(HostComputeEndpoint::id).toList();
    }

    /** One endpoint by ID: {@code HcnOpenEndpoint} by GUID, query, close; empty when HNS reports "not found". */
    Optional<HostComputeEndpoint> getEndpoint(String id);

    /**
     * Creates an endpoint on a network. When the settings carry an ID (a GUID the caller chose), HNS is given it as
     * the new endpoint's ID (the HCN reference: "Id for the new endpoint") and the result is the settings with that
     * ID and the network, not read back. Without an ID, HNS assigns one and the new endpoint is queried for it.
     */
    HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings);

    /**
     * Opens a network for a batch of endpoint creates that share one network handle (see {@link NetworkSession}).
     */
    default NetworkSession openNetwork(String networkId) {
        HnsClient self = this;
        return new NetworkSession() {
            @Override
            public String networkId() {
                return networkId;
            }

            @Override
            public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
                return self.createEndpoint(networkId, settings);
            }

            @Override
            public void close() {
            }
        };
    }

    void deleteEndpoint(String id);

    /** The IDs of every load balancer: one enumerate call, the cheap way to detect drift. */
    List<String> listLoadBalancerIds();

    List<HostComputeLoadBalancer> listLoadBalancers();

    /** One load balancer by ID: {@code HcnOpenLoadBalancer} by GUID, query, close; empty when "not found". */
    Optional<HostComputeLoadBalancer> getLoadBalancer(String id);

    /**
     * Creates a load balancer. When the settings carry an ID (a GUID the caller chose), it is passed as the new
     * object's ID and the result is the settings with that ID, not read back (create + close); without one, HNS
     * assigns the ID and the new object is queried (create + query + close).
     */
    HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings);

    /**
     * Replaces a load balancer's settings in place (HNS 15.5 and later, as hnslib gates it; {@code E_NOTIMPL} before that, see
     * {@link HnsException#isNotImplemented()}).
     */
    HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings);

    void deleteLoadBalancer(String id);

    /** Reports every native call from now on to {@code listener} ({@link NativeCallListener#NONE} to stop). */
    default void setNativeCallListener(NativeCallListener listener) {
    }
}
