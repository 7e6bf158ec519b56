package io.winproxy.hns.emulator;

/** The HCN object families the emulator models, with the names the HCN exports use. */
public enum HnsObjectKind {
    NETWORK("Network"), ENDPOINT("Endpoint"), LOAD_BALANCER("LoadBalancer");

    private final String[] exportNames = new String[HnsCall.values().length];

    HnsObjectKind(String hcnName) {
        for (HnsCall call : HnsCall.values()) {
            exportNames[call.ordinal()] = switch (call) {
                case ENUMERATE -> "HcnEnumerate" + hcnName + "s";
                case QUERY -> "HcnQuery" + hcnName + "Properties";
                case OPEN -> "HcnOpen" + hcnName;
                case CLOSE -> "HcnClose" + hcnName;
                case CREATE -> "HcnCreate" + hcnName;
                case MODIFY -> "HcnModify" + hcnName;
                case DELETE -> "HcnDelete" + hcnName;
            };
        }
    }

    /** The export name of a call on this kind, e.g. {@code HcnCreateLoadBalancer}, {@code HcnEnumerateEndpoints}. */
    public String exportName(HnsCall call) {
        return exportNames[call.ordinal()];
    }
}
