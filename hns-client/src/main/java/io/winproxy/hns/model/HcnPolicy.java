package io.winproxy.hns.model;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * A network or endpoint policy: {@code {"Type": "...", "Settings": {...}}}. Settings differ per type, so they are
 * kept as a JSON tree; typed accessors live here and on the owning documents. Type names compare case-insensitively
 * (real CNIs write {@code SDNROUTE} for {@code SDNRoute}).
 */
public record HcnPolicy(@JsonProperty("Type") String type, @JsonProperty("Settings") JsonNode settings) {
    public static final String PROVIDER_ADDRESS = "ProviderAddress";
    public static final String REMOTE_SUBNET_ROUTE = "RemoteSubnetRoute";
    public static final String DR_MAC_ADDRESS = "DrMacAddress";
    public static final String HOST_ROUTE = "HostRoute";
    public static final String OUTBOUND_NAT = "OutBoundNAT";
    public static final String SDN_ROUTE = "SDNRoute";

    public boolean isType(String name) {
        return type != null && type.equalsIgnoreCase(name);
    }

    /** A settings member as text (case-insensitive name), empty when absent or empty. */
    public Optional<String> setting(String name) {
        return Settings.text(settings, name);
    }

    /** {@code {"Type":"ProviderAddress","Settings":{"ProviderAddress":ip}}}: a remote endpoint's or network's PA. */
    public static HcnPolicy providerAddress(String ip) {
        return new HcnPolicy(PROVIDER_ADDRESS, Settings.object().put("ProviderAddress", ip));
    }

    /** {@code {"Type":"DrMacAddress","Settings":{"Address":mac}}}: the network's distributed-router MAC. */
    public static HcnPolicy drMacAddress(String mac) {
        return new HcnPolicy(DR_MAC_ADDRESS, Settings.object().put("Address", mac));
    }

    /** An empty-settings {@code HostRoute} network policy. */
    public static HcnPolicy hostRoute() {
        return new HcnPolicy(HOST_ROUTE, Settings.object());
    }
}
