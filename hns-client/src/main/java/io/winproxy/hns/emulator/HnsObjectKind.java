package io.winproxy.hns.emulator;

/** The HCN object families the emulator models, with the names the HCN exports use. */
public enum HnsObjectKind {
    NETWORK("Network"), ENDPOINT("Endpoint"), LOAD_BALANCER("LoadBalancer");

    private final String hcnName;

    HnsObjectKind(String hcnName) {
        this.hcnName = hcnName;
    }

    /** The export name of a call on this kind, e.g. {@code HcnCreateLoadBalancer}, {@code HcnEnumerateEndpoints}. */
    public String exportName(HnsCall call) {
        String verb = switch (call) {
            case ENUMERATE -> "Enumerate";
            case OPEN -> "Open";
            case QUERY -> "Query";
            case CLOSE -> "Close";
            case CREATE -> "Create";
            case MODIFY -> "Modify";
            case DELETE -> "Delete";
        };
        if (call == HnsCall.ENUMERATE) {
            return "Hcn" + verb + hcnName + "s";
        }
        return call == HnsCall.QUERY ? "HcnQuery" + hcnName + "Properties" : "Hcn" + verb + hcnName;
    }
}
