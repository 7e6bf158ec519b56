package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/** One IP of an endpoint (index 0 IPv4, index 1 IPv6 for dual stack). {@code prefixLength} 0 means omitted. */
public record IpConfiguration(@JsonProperty("IpAddress") String ipAddress,
                              @JsonProperty("PrefixLength") int prefixLength) {
    public static IpConfiguration of(String ip) {
        return new IpConfiguration(ip, 0);
    }
}
