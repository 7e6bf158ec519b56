package io.winproxy.policy.desired;

/**
 * A remote HNS endpoint winproxy needs for a backend on another node (or the overlay ClusterIP endpoint).
 *
 * <p>The MAC of a backend is the one conjured from its IP ({@link MacAddresses#conjure}); it is not kept but made
 * when asked for ({@link #macAddress()}): the desired state of 10,000 Services holds 100,000 remote endpoints, and
 * their MACs as text would take 6 MiB of the agent's heap. Only another MAC (the overlay ClusterIP endpoint's, the
 * host's) is stored.
 *
 * @param providerAddress the overlay provider address (PA) of the node hosting the IP; empty on l2bridge
 * @param storedMac       the MAC when it is not the one conjured from {@code ip}, else empty
 */
public record DesiredRemoteEndpoint(String ip, String providerAddress, String storedMac) {
    public DesiredRemoteEndpoint {
        providerAddress = providerAddress == null ? "" : providerAddress;
        storedMac = storedMac == null || storedMac.isEmpty() || storedMac.equalsIgnoreCase(MacAddresses.conjure(ip))
                ? "" : storedMac;
    }

    /** A backend's endpoint: its MAC is the one conjured from {@code ip}. */
    public static DesiredRemoteEndpoint conjured(String ip, String providerAddress) {
        return new DesiredRemoteEndpoint(ip, providerAddress, "");
    }

    /** The MAC to write: {@code 02-11-aa-bb-cc-dd} for an IPv4 backend, or the stored one. */
    public String macAddress() {
        return storedMac.isEmpty() ? MacAddresses.conjure(ip) : storedMac;
    }
}
