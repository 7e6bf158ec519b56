package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A policy of a v1 policy list as {@code Get-HnsPolicyList} shows it: an {@code ELB} (load balancer) policy or a
 * {@code ROUTE} policy; members of the other type stay at their defaults and are omitted on output.
 */
public record V1Policy(@JsonProperty("Type") String type,
                       @JsonProperty("Protocol") int protocol,
                       @JsonProperty("InternalPort") int internalPort,
                       @JsonProperty("ExternalPort") int externalPort,
                       @JsonProperty("VIPs") List<String> vips,
                       @JsonProperty("SourceVIP") String sourceVip,
                       @JsonProperty("ILB") boolean ilb,
                       @JsonProperty("IsDSR") boolean isDsr,
                       @JsonProperty("LocalRoutedVip") boolean localRoutedVip,
                       @JsonProperty("DestinationPrefix") String destinationPrefix,
                       @JsonProperty("NextHop") String nextHop,
                       @JsonProperty("NeedEncap") boolean needEncap) {
    public static final String ELB = "ELB";
    public static final String ROUTE = "ROUTE";

    public V1Policy {
        vips = vips == null ? List.of() : List.copyOf(vips);
    }

    /** An ELB policy. */
    public static V1Policy elb(int protocol, int internalPort, int externalPort, List<String> vips, String sourceVip,
                               boolean ilb, boolean dsr, boolean localRoutedVip) {
        return new V1Policy(ELB, protocol, internalPort, externalPort, vips, sourceVip, ilb, dsr, localRoutedVip,
                null, null, false);
    }

    @JsonIgnore
    public boolean isElb() {
        return ELB.equalsIgnoreCase(type);
    }

    @JsonIgnore
    public boolean isRoute() {
        return ROUTE.equalsIgnoreCase(type);
    }
}
