package io.winproxy.policy.desired;

import io.winproxy.policy.net.IpAddresses;
import io.winproxy.policy.net.IpPrefix;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Overlay remote-subnet routes parsed once, for provider-address lookups: the longest matching prefix wins (ties to
 * the lower prefix text); an IP that is itself a provider address (another node) is its own PA. Malformed prefixes
 * are ignored. Immutable.
 */
final class RemoteSubnets {
    private record Route(String text, IpPrefix prefix, String providerAddress) {
    }

    private final List<Route> routes;
    private final Set<String> providerAddresses;

    RemoteSubnets(Map<String, String> prefixToProviderAddress) {
        List<Route> parsed = new ArrayList<>();
        prefixToProviderAddress.forEach((text, pa) -> IpPrefix.parse(text)
                .ifPresent(prefix -> parsed.add(new Route(text, prefix, pa))));
        parsed.sort(Comparator.comparingInt((Route r) -> -r.prefix().bits()).thenComparing(Route::text));
        this.routes = List.copyOf(parsed);
        this.providerAddresses = Set.copyOf(prefixToProviderAddress.values());
    }

    Optional<String> providerAddressOf(String ip) {
        if (providerAddresses.contains(ip)) {
            return Optional.of(ip);
        }
        Optional<byte[]> address = IpAddresses.parse(ip);
        return address.isEmpty() ? Optional.empty() : Optional.ofNullable(providerAddressOf(ip, address.get()));
    }

    /** The provider address of {@code ip}, already parsed into {@code address}; null when none. */
    String providerAddressOf(String ip, byte[] address) {
        if (providerAddresses.contains(ip)) {
            return ip;
        }
        for (Route route : routes) {
            if (route.prefix().contains(address)) {
                return route.providerAddress();
            }
        }
        return null;
    }
}
