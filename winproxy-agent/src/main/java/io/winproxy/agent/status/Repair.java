package io.winproxy.agent.status;

/**
 * An HNS object the dataplane re-created or corrected because it changed behind winproxy's back.
 *
 * @param object      {@code load_balancer} or {@code remote_endpoint} (the metric's {@code object} label)
 * @param cause       {@code deleted_out_of_band}, {@code changed_out_of_band}, {@code hns_restart} or {@code leaked}
 * @param servicePort the service port it serves ("ns/name:port"), "" when none (a leaked object of a gone Service)
 * @param frontend    the load balancer's frontend ("10.96.0.10:53/UDP"), or the object's ID
 * @param kind        the load balancer's kind ({@code ClusterIP}, ...), "" when unknown
 */
public record Repair(String object, String cause, String servicePort, String frontend, String kind) {
    public static final String LOAD_BALANCER = "load_balancer";
    public static final String DELETED_OUT_OF_BAND = "deleted_out_of_band";
    public static final String CHANGED_OUT_OF_BAND = "changed_out_of_band";
    public static final String HNS_RESTART = "hns_restart";
    public static final String LEAKED = "leaked";

    /** The Event message on the Service. */
    String message() {
        String what = (kind.isEmpty() ? "" : kind + " ") + "load balancer " + frontend + " for port " + servicePort;
        return switch (cause) {
            case DELETED_OUT_OF_BAND -> "Re-created " + what + ": it was deleted behind winproxy's back";
            case HNS_RESTART -> "Re-created " + what + ": HNS lost it while it restarted";
            case CHANGED_OUT_OF_BAND -> "Corrected " + what + ": it was changed behind winproxy's back";
            default -> "Deleted " + what + ": left over from an earlier run";
        };
    }
}
