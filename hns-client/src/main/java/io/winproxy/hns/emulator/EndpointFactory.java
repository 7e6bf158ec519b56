package io.winproxy.hns.emulator;

import io.winproxy.hns.HResults;
import io.winproxy.hns.emulator.EmulatorRules.RuleViolation;
import io.winproxy.hns.model.HostComputeEndpoint;
import io.winproxy.hns.model.HostComputeNetwork;
import io.winproxy.hns.model.IpConfiguration;
import io.winproxy.hns.model.SchemaVersion;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Turns endpoint create settings into the endpoint HNS stores: a fresh ID, the owning network, an address from the
 * network's first IPv4 subnet when none was given (HNS's static IPAM), a Hyper-V style MAC ({@code 00-15-5D-..})
 * when none was given, and schema 2.0; then applies {@link EmulatorRules#checkEndpoint}.
 */
final class EndpointFactory {
    private EndpointFactory() {
    }

    static HostComputeEndpoint complete(EmulatorStore store, HostComputeNetwork network, HostComputeEndpoint s) {
        String id = store.newId();
        List<IpConfiguration> ips = s.ipConfigurations().isEmpty() || s.ipAddresses().isEmpty()
                ? List.of(allocate(store, network)) : s.ipConfigurations();
        String mac = s.macAddress() == null || s.macAddress().isEmpty() ? macFor(id) : s.macAddress();
        HostComputeEndpoint ep = new HostComputeEndpoint(id, s.name(), network.id(), s.policies(), ips, mac,
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
        Set<String> used = new HashSet<>();
        store.endpoints().stream().filter(e -> EmulatorStore.key(e.hostComputeNetwork())
                .equals(EmulatorStore.key(network.id()))).forEach(e -> used.addAll(e.ipAddresses()));
        long[] range = Ipv4.range(subnet.get()).orElseThrow();
        for (long a = range[0] + 2; a < range[1]; a++) {
            String ip = Ipv4.format(a);
            if (!used.contains(ip)) {
                return new IpConfiguration(ip, Ipv4.prefixLength(subnet.get()));
            }
        }
        throw new RuleViolation(HResults.HCN_E_ADDR_INVALID_OR_RESERVED, "No free address in " + subnet.get());
    }

    /** A MAC in Hyper-V's range derived from the endpoint ID. */
    static String macFor(String id) {
        String hex = id.replace("-", "").toUpperCase(Locale.ROOT);
        return "00-15-5D-" + hex.substring(0, 2) + "-" + hex.substring(2, 4) + "-" + hex.substring(4, 6);
    }
}
