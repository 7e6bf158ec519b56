package io.winproxy.dsr;

import java.util.Locale;

/**
 * Whether Direct Server Return is enabled for ClusterIP load balancers, decided once at start-up from
 * {@code --enable-dsr} (or {@code winkernel.enableDSR}), the {@code WinDSR} feature gate and the HNS version, with
 * upstream's rules (winkernel-semantics §1.2 step 8): DSR asked for with the gate off is a configuration error;
 * DSR asked for on an HNS without DSR support is an error naming the HNS version. Not asking for DSR is always valid
 * (ETP=Local services still get DSR where HNS supports it, see {@link DirectServerReturn}).
 *
 * @param enabled       DSR on ClusterIP load balancers
 * @param hnsSupportsDsr whether this HNS can program DSR at all
 */
public record DsrSettings(boolean enabled, boolean hnsSupportsDsr) {
    /** The feature gate name. */
    public static final String WIN_DSR_GATE = "WinDSR";

    /**
     * Validates the DSR request.
     *
     * @param enableDsrRequested {@code --enable-dsr} / {@code winkernel.enableDSR}
     * @param winDsrGateEnabled  the value of the {@code WinDSR} gate (default on)
     * @param hnsSupportsDsr     HNS reports the DSR feature (9.3-9.x, 10.2 and later)
     * @param hnsVersion         the HNS version as text ("15.4"), for the error message
     * @throws DsrConfigurationException with a one-line message naming the gate or the HNS version
     */
    public static DsrSettings resolve(boolean enableDsrRequested, boolean winDsrGateEnabled, boolean hnsSupportsDsr,
                                      String hnsVersion) {
        if (enableDsrRequested && !winDsrGateEnabled) {
            throw new DsrConfigurationException("--enable-dsr requires the " + WIN_DSR_GATE
                    + " feature gate, but --feature-gates sets " + WIN_DSR_GATE + "=false");
        }
        if (enableDsrRequested && !hnsSupportsDsr) {
            throw new DsrConfigurationException(String.format(Locale.ROOT,
                    "--enable-dsr: this host's HNS version %s does not support DSR (needs HNS 9.3 or 10.2 and later:"
                            + " Windows Server 2019 with KB4571748, or newer)", hnsVersion));
        }
        return new DsrSettings(enableDsrRequested, hnsSupportsDsr);
    }
}
