package io.winproxy.agent.check;

import io.winproxy.hns.HnsClient;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsLimits;
import java.util.Optional;

/** Where {@code check} reads the node's dynamic port pool: netsh on Windows, the emulated host's pool otherwise. */
final class PortPools {
    private PortPools() {
    }

    static Optional<Capacity.PortPool> of(HnsClient hns, boolean realHns) {
        if (hns instanceof HnsEmulator emulator) {
            HnsLimits limits = emulator.limits();
            return limits.portPoolLimited() ? Optional.of(new Capacity.PortPool(limits.dynamicPorts(),
                    limits.dynamicPortsInUse(), "the emulated host's pool")) : Optional.empty();
        }
        if (realHns) {
            return DynamicPortRange.readWindows().map(r -> new Capacity.PortPool(r.count(), 0,
                    "netsh int ipv4 show dynamicport tcp: " + r.start() + "-" + (r.start() + r.count() - 1)));
        }
        return Optional.empty();
    }
}
