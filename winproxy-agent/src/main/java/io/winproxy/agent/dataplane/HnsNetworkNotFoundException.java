package io.winproxy.agent.dataplane;

/** The HNS network winproxy programs ({@code --network-name} / {@code KUBE_NETWORK}) does not exist (yet). */
public class HnsNetworkNotFoundException extends RuntimeException {
    private final String networkName;

    public HnsNetworkNotFoundException(String networkName) {
        super("HNS network \"" + networkName + "\" not found");
        this.networkName = networkName;
    }

    public String networkName() {
        return networkName;
    }
}
