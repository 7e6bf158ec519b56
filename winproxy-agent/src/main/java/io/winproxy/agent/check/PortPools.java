package io.winproxy.agent.check;

import io.winproxy.hns.HnsClient;
import java.util.Optional;

/** Where {@code check} reads the node's dynamic port pool: netsh on Windows. */
final class PortPools {
    private PortPools() {
    }

    static Optional<Capacity.PortPool> of(HnsClient hns, boolean realHns) {
        if (realHns) {
            return DynamicPortRange.readWindows().map(r -> new Capacity.PortPool(r.count(), 0,
                    "netsh int ipv4 show dynamicport tcp: " + r.start() + "-" + (r.start() + r.count() - 1)));
        }
        return Optional.empty();
    }
}
