package io.winproxy.hns;

import io.winproxy.hns.model.HostComputeEndpoint;

/**
 * An opened network for a batch of endpoint creates: {@code HcnOpenNetwork} once when opened,
 * {@code HcnCloseNetwork} once on {@link #close()}, and per endpoint only the create (and, when HNS assigns the ID,
 * the query) and the close of the new endpoint. Used by one thread; close it in {@code finally}.
 */
public interface NetworkSession extends AutoCloseable {

    /** The network's ID as given to {@link HnsClient#openNetwork(String)}. */
    String networkId();

    /** As {@link HnsClient#createEndpoint(String, HostComputeEndpoint)}, on this session's network handle. */
    HostComputeEndpoint createEndpoint(HostComputeEndpoint settings);

    /** Closes the network handle; never throws. */
    @Override
    void close();
}
