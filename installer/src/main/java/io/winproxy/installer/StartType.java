package io.winproxy.installer;

import java.util.Locale;

/** How the SCM starts the service, as {@code install-service.ps1 -StartType} names it. */
public enum StartType {
    /** {@code SERVICE_AUTO_START}. */
    AUTOMATIC(2, false),
    /** {@code SERVICE_AUTO_START} plus {@code SERVICE_CONFIG_DELAYED_AUTO_START_INFO}. */
    AUTOMATIC_DELAYED(2, true),
    /** {@code SERVICE_DEMAND_START}, as AKS registers kube-proxy. */
    MANUAL(3, false);

    private final int win32;
    private final boolean delayed;

    StartType(int win32, boolean delayed) {
        this.win32 = win32;
        this.delayed = delayed;
    }

    /** The {@code dwStartType} of {@code CreateService}. */
    public int win32() {
        return win32;
    }

    public boolean delayed() {
        return delayed;
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
