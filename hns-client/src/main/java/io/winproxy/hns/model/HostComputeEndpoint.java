package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/** A v2 endpoint. {@code flags} bit 1 = RemoteEndpoint (the endpoint lives on another host). */
public record HostComputeEndpoint(@JsonProperty("ID") String id,
                                  @JsonProperty("Name") String name,
                                  @JsonProperty("HostComputeNetwork") String hostComputeNetwork,
                                  @JsonProperty("Policies") List<HcnPolicy> policies,
                                  @JsonProperty("IpConfigurations") List<IpConfiguration> ipConfigurations,
                                  @JsonProperty("MacAddress") String macAddress,
                                  @JsonProperty("Flags") int flags,
                                  @JsonProperty("SchemaVersion") SchemaVersion schemaVersion) {
    public static final int FLAG_REMOTE_ENDPOINT = 1;

    public HostComputeEndpoint {
        policies = policies == null ? List.of() : List.copyOf(policies);
        ipConfigurations = ipConfigurations == null ? List.of() : List.copyOf(ipConfigurations);
    }

    public boolean isRemote() {
        return (flags & FLAG_REMOTE_ENDPOINT) != 0;
    }
}
