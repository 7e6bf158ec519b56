package io.winproxy.agent.zpages;

import java.util.Map;
import java.util.TreeMap;

/**
 * component-base's health-check SLIs, served on {@code /metrics/slis}: {@code kubernetes_healthcheck{name,type}}
 * (1 when the check last passed, else 0) and {@code kubernetes_healthchecks_total{name,status,type}} (every result,
 * {@code status} {@code success} or {@code error}), in Go's Prometheus text format (labels sorted, {@code [STABLE]}
 * help prefix). Thread-safe.
 */
public final class HealthcheckSlis {
    /** component-base's status label values. */
    public static final String SUCCESS = "success";
    public static final String ERROR = "error";

    /** "name\u0000type" to the last result. */
    private final Map<String, Boolean> last = new TreeMap<>();
    /** "name\u0000status\u0000type" to the count. */
    private final Map<String, Long> totals = new TreeMap<>();

    /** Records one result of check {@code name} served on endpoint {@code type} ({@code healthz}, ...). */
    public synchronized void observe(String name, String type, boolean success) {
        last.put(name + '\u0000' + type, success);
        totals.merge(name + '\u0000' + (success ? SUCCESS : ERROR) + '\u0000' + type, 1L, Long::sum);
    }

    /** Forgets every result ({@code DELETE /metrics/slis}, as component-base's handler with reset). */
    public synchronized void reset() {
        last.clear();
        totals.clear();
    }

    /** The exposition; families without a series are left out, as Go's client does. */
    public synchronized String exposition() {
        StringBuilder out = new StringBuilder();
        if (!last.isEmpty()) {
            out.append("# HELP kubernetes_healthcheck [STABLE] This metric records the result of a single "
                    + "healthcheck.\n# TYPE kubernetes_healthcheck gauge\n");
            last.forEach((key, ok) -> {
                String[] k = key.split("\u0000");
                out.append("kubernetes_healthcheck{name=\"").append(k[0]).append("\",type=\"").append(k[1])
                        .append("\"} ").append(ok ? 1 : 0).append('\n');
            });
        }
        if (!totals.isEmpty()) {
            out.append("# HELP kubernetes_healthchecks_total [STABLE] This metric records the results of all "
                    + "healthcheck.\n# TYPE kubernetes_healthchecks_total counter\n");
            totals.forEach((key, n) -> {
                String[] k = key.split("\u0000");
                out.append("kubernetes_healthchecks_total{name=\"").append(k[0]).append("\",status=\"")
                        .append(k[1]).append("\",type=\"").append(k[2]).append("\"} ").append(n).append('\n');
            });
        }
        return out.toString();
    }
}
