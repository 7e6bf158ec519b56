package io.winproxy.hns.windows;

import io.winproxy.hns.HResults;
import io.winproxy.hns.NetworkSession;
import io.winproxy.hns.model.HostComputeEndpoint;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link NetworkSession} over one {@code HcnOpenNetwork} handle: every create runs on it, {@link #close()} calls
 * {@code HcnCloseNetwork} once and never throws (a failure is logged at debug: the handle is unusable either way).
 * Creates after the close fail with {@link IllegalStateException} without a native call. Used by one thread.
 */
record HcnNetworkSession(String networkId, HcnHandle network, EndpointCreator creator) implements NetworkSession {
    private static final Logger logger = LoggerFactory.getLogger(HcnNetworkSession.class);

    /** Creates one endpoint on an open network handle. */
    @FunctionalInterface
    interface EndpointCreator {
        HostComputeEndpoint create(HcnHandle network, String networkId, HostComputeEndpoint settings);
    }

    @Override
    public HostComputeEndpoint createEndpoint(HostComputeEndpoint settings) {
        return creator.create(network, networkId, settings);
    }

    @Override
    public void close() {
        try {
            int hresult = network.release();
            if (hresult < 0) {
                logger.atDebug().setMessage("Closing the network handle failed")
                        .addKeyValue("operation", network.closeOperation()).addKeyValue("networkID", networkId)
                        .addKeyValue("hresult", HResults.hex(hresult)).log();
            }
        } catch (RuntimeException e) {
            logger.atDebug().setMessage("Closing the network handle failed")
                    .addKeyValue("operation", network.closeOperation()).addKeyValue("networkID", networkId)
                    .setCause(e).log();
        }
    }
}
