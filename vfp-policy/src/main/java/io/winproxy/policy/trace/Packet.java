package io.winproxy.policy.trace;

import io.winproxy.policy.model.Protocol;

/** One packet to trace: source IP, destination IP and port, protocol. */
public record Packet(String sourceIp, String destinationIp, int destinationPort, Protocol protocol) {
    public Packet {
        protocol = protocol == null ? Protocol.TCP : protocol;
    }
}
