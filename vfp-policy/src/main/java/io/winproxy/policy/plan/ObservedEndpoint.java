package io.winproxy.policy.plan;

import io.winproxy.policy.model.IpFamily;
import java.util.List;
import java.util.Optional;

/**
 * An HNS endpoint as observed on the host, in policy vocabulary. An endpoint winproxy owns is described by the
 * ownership journal (what winproxy wrote); any other by the document HNS returned, where a field HNS omits on
 * read-back is empty, meaning unknown rather than different.
 *
 * @param id              the endpoint's ID, lower-case
 * @param ips             the endpoint's IPs (at most one per family), canonical text
 * @param remote          the HNS RemoteEndpoint flag; a local endpoint belongs to the CNI and is never deleted
 * @param providerAddress the ProviderAddress policy of a remote overlay endpoint, or empty (l2bridge, or not returned)
 * @param macAddress      the MAC winproxy wrote, or empty when unknown (only the journal's MACs are compared)
 */
public record ObservedEndpoint(String id, List<String> ips, boolean remote, String providerAddress,
                               String macAddress) {
    public ObservedEndpoint {
        ips = List.copyOf(ips);
        providerAddress = providerAddress == null ? "" : providerAddress;
        macAddress = macAddress == null ? "" : macAddress;
    }

    public ObservedEndpoint(String id, List<String> ips, boolean remote, String providerAddress) {
        this(id, ips, remote, providerAddress, "");
    }

    /** A local (CNI-owned) endpoint. */
    public static ObservedEndpoint local(String id, String... ips) {
        return new ObservedEndpoint(id, List.of(ips), false, "", "");
    }

    /** A remote endpoint; {@code providerAddress} empty on l2bridge. */
    public static ObservedEndpoint remote(String id, String ip, String providerAddress) {
        return new ObservedEndpoint(id, List.of(ip), true, providerAddress, "");
    }

    /** The endpoint's IP of {@code family}, if it has one. */
    public Optional<String> ip(IpFamily family) {
        return ips.stream().filter(ip -> IpFamily.of(ip) == family).findFirst();
    }
}
