package io.winproxy.agent.dataplane;

import io.winproxy.hns.HnsCapabilities;
import io.winproxy.hns.HnsClient;
import io.winproxy.hns.NativeCallListener;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.HostComputeNetwork;
import java.util.List;
import java.util.Optional;

/** An {@link HnsClient} that forwards every call; tests override the one behaviour they change. */
class ForwardingHnsClient implements HnsClient {
    private final HnsClient delegate;

    ForwardingHnsClient(HnsClient delegate) {
        this.delegate = delegate;
    }

    @Override
    public HnsCapabilities capabilities() {
        return delegate.capabilities();
    }

    @Override
    public List<HostComputeNetwork> listNetworks() {
        return delegate.listNetworks();
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkByName(String name) {
        return delegate.getNetworkByName(name);
    }

    @Override
    public Optional<HostComputeNetwork> getNetworkById(String id) {
        return delegate.getNetworkById(id);
    }

    @Override
    public List<HostComputeEndpoint> listEndpoints(String networkId) {
        return delegate.listEndpoints(networkId);
    }

    @Override
    public List<String> listEndpointIds(String networkId) {
        return delegate.listEndpointIds(networkId);
    }

    @Override
    public Optional<HostComputeEndpoint> getEndpoint(String id) {
        return delegate.getEndpoint(id);
    }

    @Override
    public HostComputeEndpoint createEndpoint(String networkId, HostComputeEndpoint settings) {
        return delegate.createEndpoint(networkId, settings);
    }

    @Override
    public NetworkSession openNetwork(String networkId) {
        return delegate.openNetwork(networkId);
    }

    @Override
    public void deleteEndpoint(String id) {
        delegate.deleteEndpoint(id);
    }

    @Override
    public List<String> listLoadBalancerIds() {
        return delegate.listLoadBalancerIds();
    }

    @Override
    public List<HostComputeLoadBalancer> listLoadBalancers() {
        return delegate.listLoadBalancers();
    }

    @Override
    public Optional<HostComputeLoadBalancer> getLoadBalancer(String id) {
        return delegate.getLoadBalancer(id);
    }

    @Override
    public HostComputeLoadBalancer createLoadBalancer(HostComputeLoadBalancer settings) {
        return delegate.createLoadBalancer(settings);
    }

    @Override
    public HostComputeLoadBalancer modifyLoadBalancer(String id, HostComputeLoadBalancer settings) {
        return delegate.modifyLoadBalancer(id, settings);
    }

    @Override
    public void deleteLoadBalancer(String id) {
        delegate.deleteLoadBalancer(id);
    }

    @Override
    public void setNativeCallListener(NativeCallListener listener) {
        delegate.setNativeCallListener(listener);
    }
}
