package io.winproxy.hns.emulator;

import com.fasterxml.jackson.annotation.JsonValue;
import io.winproxy.hns.model.HostComputeLoadBalancer;
import io.winproxy.hns.model.LoadBalancerPortMapping;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A plausible HNS behaviour that public sources neither confirm nor rule out, which the emulator can switch on in
 * addition to its pessimistic default profile, so that a client can be checked against each assumption it makes.
 * Variants combine freely; they belong to the emulated host (with a state file they are saved in it, so that
 * {@code hns variant set} in one process changes the host another process uses). docs/emulator.md gives the evidence
 * for each.
 */
public enum HnsVariant {
    /**
     * A create ignores the caller's GUID and gives the object an ID of HNS's own (random, upper-case). The answer of
     * the create is what the binding builds without a query: the caller's ID; the object is found only under HNS's.
     */
    IDS_IGNORED("creates ignore the caller's GUID: HNS gives the object a random upper-case ID of "
            + "its own (the create still answers with the caller's ID, as the binding does not query it)"),
    /** A create with a non-zero caller GUID fails with {@code E_INVALIDARG}; a zero GUID works. */
    IDS_REJECTED("a create with a non-zero caller GUID fails with 0x80070057 E_INVALIDARG"),
    /** Read-back adds load-balancer and port-mapping flag bits the client never wrote. */
    EXTRA_FLAGS("read-back adds load balancer flag 0x" + Integer.toHexString(HnsVariant.EXTRA_LB_FLAGS)
            + " and port-mapping flag 0x" + Integer.toHexString(HnsVariant.EXTRA_PORT_MAPPING_FLAGS)
            + " that were never written"),
    /** {@code HcnModifyLoadBalancer} answers {@code S_OK} and changes nothing (kubernetes#131466, taken further). */
    MODIFY_NOOP("HcnModifyLoadBalancer answers S_OK and changes nothing (kubernetes#131466)"),
    /**
     * A load balancer create whose frontend (VIP, protocol, port) another load balancer has fails with
     * {@code ERROR_ALREADY_EXISTS} whatever the GUID sent, the zero GUID included (kubernetes#139519), instead of
     * {@code HCN_E_PORT_ALREADY_EXISTS}.
     */
    DUPLICATE_FRONTEND("a load balancer create whose frontend exists fails with 0x800700B7 "
            + "ERROR_ALREADY_EXISTS, also with a zero GUID (kubernetes#139519)"),
    /**
     * An open, query, modify or delete of a load balancer ID that does not exist fails with
     * {@code HCN_E_POLICY_NOT_FOUND} instead of {@code ERROR_NOT_FOUND} (no public client opens a load balancer by an
     * unknown ID, so which code HNS gives is not known).
     */
    POLICY_NOT_FOUND("an open or delete of an unknown load balancer ID fails with 0x803B0008 "
            + "HCN_E_POLICY_NOT_FOUND instead of 0x80070490 ERROR_NOT_FOUND");

    /** The load balancer flag bit {@link #EXTRA_FLAGS} adds on read-back (undocumented; not DSR 1 or IPv6 2). */
    public static final int EXTRA_LB_FLAGS = 0x100;
    /** The port-mapping flag bit {@link #EXTRA_FLAGS} adds on read-back (undocumented; above VipExternalIP 16). */
    public static final int EXTRA_PORT_MAPPING_FLAGS = 0x4000;

    private final String description;

    HnsVariant(String description) {
        this.description = description;
    }

    /**
     * The name used on the command line and in the state file, e.g. {@code ids-ignored}: the constant's name in
     * lower case with dashes.
     */
    @JsonValue
    public String text() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** What the variant changes, in one line. */
    public String description() {
        return description;
    }

    /**
     * The variant of a name (letter case and surrounding blanks ignored).
     *
     * @throws IllegalArgumentException naming the unknown name and the known ones
     */
    public static HnsVariant parse(String name) {
        String wanted = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (HnsVariant v : values()) {
            if (v.text().equals(wanted)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown HNS variant '" + name + "' (known: " + names() + ")");
    }

    /** Every variant's name, comma-separated, in declaration order. */
    public static String names() {
        return Arrays.stream(values()).map(HnsVariant::text).collect(Collectors.joining(", "));
    }

    /** A read-back document with the {@link #EXTRA_FLAGS} bits added. */
    static HostComputeLoadBalancer withExtraFlags(HostComputeLoadBalancer lb) {
        List<LoadBalancerPortMapping> mappings = lb.portMappings().stream()
                .map(pm -> new LoadBalancerPortMapping(pm.protocol(), pm.internalPort(), pm.externalPort(),
                        pm.distributionType(), pm.flags() | EXTRA_PORT_MAPPING_FLAGS))
                .toList();
        return new HostComputeLoadBalancer(lb.id(), lb.hostComputeEndpoints(), lb.sourceVip(), lb.frontendVips(),
                mappings, lb.schemaVersion(), lb.flags() | EXTRA_LB_FLAGS);
    }
}
