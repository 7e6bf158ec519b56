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
}
