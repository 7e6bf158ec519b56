package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The single port mapping of a load balancer. {@code protocol}: 6 TCP, 17 UDP. {@code distributionType}: 0 none,
 * 1 SourceIPProtocol, 2 SourceIP. {@code flags}: 1 ILB, 2 LocalRoutedVIP, 4 UseMux, 8 PreserveDIP, 16 VipExternalIP.
 */
public record LoadBalancerPortMapping(@JsonProperty("Protocol") int protocol,
                                      @JsonProperty("InternalPort") int internalPort,
                                      @JsonProperty("ExternalPort") int externalPort,
                                      @JsonProperty("DistributionType") int distributionType,
                                      @JsonProperty("Flags") int flags) {
    public static final int PROTOCOL_TCP = 6;
    public static final int PROTOCOL_UDP = 17;
    public static final int PROTOCOL_SCTP = 132;

    public static final int DISTRIBUTION_NONE = 0;
    public static final int DISTRIBUTION_SOURCE_IP_PROTOCOL = 1;
    public static final int DISTRIBUTION_SOURCE_IP = 2;

    public static final int FLAG_ILB = 1;
    public static final int FLAG_LOCAL_ROUTED_VIP = 2;
    public static final int FLAG_USE_MUX = 4;
    public static final int FLAG_PRESERVE_DIP = 8;
    public static final int FLAG_VIP_EXTERNAL_IP = 16;

    public boolean hasFlag(int flag) {
        return (flags & flag) == flag;
    }
}
