package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.SchemaVersion;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Turns endpoint create settings into the endpoint HNS stores: the caller-chosen ID or a fresh one, the owning
 * network, an address from the network's first IPv4 subnet when none was given (HNS's static IPAM, answered from the
 * store's per-network index of used addresses in O(log n)), a Hyper-V style MAC ({@code 00-15-5D-..}) when none was
 * given, and schema 2.0; then applies {@link EmulatorRules#checkEndpoint}.
 */
final class EndpointFactory {
    private EndpointFactory() {
    }

    /** The endpoint to store, with a fresh HNS-assigned ID. */
    static HostComputeEndpoint complete(EmulatorStore store, HostComputeNetwork network, HostComputeEndpoint s) {
        return complete(store, network, s, null);
    }

    /** The endpoint to store, with {@code id} (the caller's choice, kept exactly) or, when null, a fresh ID. */
    static HostComputeEndpoint complete(EmulatorStore store, HostComputeNetwork network, HostComputeEndpoint s,
                                        String id) {
        String newId = id != null ? id : store.newId();
        List<IpConfiguration> ips = s.ipConfigurations().isEmpty() || s.ipAddresses().isEmpty()
                ? List.of(allocate(store, network)) : s.ipConfigurations();
        String mac = s.macAddress() == null || s.macAddress().isEmpty() ? macFor(newId) : s.macAddress();
        HostComputeEndpoint ep = new HostComputeEndpoint(newId, s.name(), network.id(), s.policies(), ips, mac,
                s.flags(), SchemaVersion.V2);
        EmulatorRules.checkEndpoint(network, ep);
        return ep;
    }

    /** The lowest free host address of the network's first IPv4 subnet (the .1 gateway is skipped). */
    private static IpConfiguration allocate(EmulatorStore store, HostComputeNetwork network) {
        Optional<String> subnet = network.subnetPrefixes().stream().filter(p -> Ipv4.range(p).isPresent()).findFirst();
        if (subnet.isEmpty()) {
            throw new RuleViolation(HResults.HCN_E_INVALID_IP,
                    "The endpoint has no IP address and network " + network.name() + " has no IPv4 subnet");
        }
        long[] range = Ipv4.range(subnet.get()).orElseThrow();
        long free = store.lowestFreeIpv4(network.id(), range[0] + 2);
        if (free < range[1]) {
            return new IpConfiguration(Ipv4.format(free), Ipv4.prefixLength(subnet.get()));
        }
        throw new RuleViolation(HResults.HCN_E_ADDR_INVALID_OR_RESERVED, "No free address in " + subnet.get());
    }

    /** A MAC in Hyper-V's range derived from the endpoint ID. */
    static String macFor(String id) {
        String hex = EmulatorStore.key(id).replace("-", "").toUpperCase(Locale.ROOT);
        return "00-15-5D-" + hex.substring(0, 2) + "-" + hex.substring(2, 4) + "-" + hex.substring(4, 6);
    }
}
