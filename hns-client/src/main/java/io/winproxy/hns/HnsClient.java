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

    Optional<HostComputeEndpoint> getEndpoint(String id);

    /**
     * Creates an endpoint on a network (the settings' ID is ignored; HNS assigns one) and returns it as HNS stores it.
     */
    HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings);

    void deleteEndpoint(String id);

    /** The IDs of every load balancer: one enumerate call, the cheap way to detect drift. */
    List<String> listLoadBalancerIds();

    List<HostComputeLoadBalancer> listLoadBalancers();

    Optional<HostComputeLoadBalancer> getLoadBalancer(String id);

    /** Creates a load balancer (zero GUID; HNS assigns the ID) and returns it as HNS stores it. */
    HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings);

    /**
     * Replaces a load balancer's settings in place (HNS 15.4 and later; {@code E_NOTIMPL} before that, see
     * {@link HnsException#isNotImplemented()}).
     */
    HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings);

    void deleteLoadBalancer(String id);
}
