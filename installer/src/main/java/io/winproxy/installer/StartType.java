package io.winproxy.installer;

import java.util.Locale;

/** How the SCM starts the service, as {@code install-service.ps1 -StartType} names it. */
public enum StartType {
    /** {@code SERVICE_AUTO_START}. */
    AUTOMATIC,
    /** {@code SERVICE_AUTO_START} plus {@code SERVICE_CONFIG_DELAYED_AUTO_START_INFO}. */
    AUTOMATIC_DELAYED,
    /** {@code SERVICE_DEMAND_START}, as AKS registers kube-proxy. */
    MANUAL;

    private static final int SERVICE_AUTO_START = 2;
    private static final int SERVICE_DEMAND_START = 3;

    /** The {@code dwStartType} of {@code CreateService}. */
    public int win32() {
        return this == MANUAL ? SERVICE_DEMAND_START : SERVICE_AUTO_START;
    }

    /** Whether the service also gets {@code SERVICE_CONFIG_DELAYED_AUTO_START_INFO}. */
    public boolean delayed() {
        return this == AUTOMATIC_DELAYED;
    }

    /**
     * Parses {@code automatic}, {@code delayed} (or {@code automatic-delayed}) and {@code manual}, ignoring case.
     *
     * @throws IllegalArgumentException with a one-line message naming {@code --start-type}
     */
    public static StartType parse(String value) {
        String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return switch (v) {
            case "automatic", "auto" -> AUTOMATIC;
            case "delayed", "automatic-delayed", "delayed-auto" -> AUTOMATIC_DELAYED;
            case "manual", "demand" -> MANUAL;
            default -> throw new IllegalArgumentException("invalid --start-type \"" + value
                    + "\": expected automatic, delayed or manual");
        };
    }
}
