package io.winproxy.policy.desired;

/**
 * A remote HNS endpoint winproxy needs for a backend on another node (or the overlay ClusterIP endpoint).
 *
 * @param providerAddress the overlay provider address (PA) of the node hosting the IP; empty on l2bridge
 * @param macAddress      the conjured MAC ({@code 02-11-aa-bb-cc-dd} for IPv4)
 */
public record DesiredRemoteEndpoint(String ip, String providerAddress, String macAddress) {
    public DesiredRemoteEndpoint {
        providerAddress = providerAddress == null ? "" : providerAddress;
    }
}
