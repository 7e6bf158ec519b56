package io.winproxy.agent.status;

import java.util.List;
import java.util.stream.Collectors;

/** {@code winproxy status}'s text form: one block per Service port. */
final class StatusText {
    private StatusText() {
    }

    static String render(String firstLine, StatusReport.Document doc) {
        StringBuilder t = new StringBuilder(firstLine).append('\n');
        if (doc.servicePorts().isEmpty()) {
            return t.append("No Service ports.\n").toString();
        }
        for (ServicePortStatus p : doc.servicePorts()) {
            t.append('\n').append(p.servicePort()).append(" (").append(p.protocol()).append(")  ")
                    .append(p.state().toUpperCase(java.util.Locale.ROOT));
            if (!p.reason().isEmpty()) {
                t.append(": ").append(p.reason());
            }
            if (p.nextTry() != null) {
                t.append(" (next try ").append(p.nextTry()).append(')');
            }
            t.append('\n');
            line(t, "frontends", p.frontends().stream().map(f -> f.kind() + " " + f.ip() + ":" + f.port() + " "
                    + f.family() + (f.served() ? "" : " (not served)")).collect(Collectors.joining(", ")));
            ServicePortStatus.Backends b = p.backends();
            line(t, "backends", b.inSlices() + " in EndpointSlices, " + b.ready() + " ready, " + b.chosen()
                    + " chosen, " + b.inHns() + " in HNS");
            List<ServicePortStatus.LoadBalancer> lbs = p.loadBalancers();
            if (lbs.isEmpty()) {
                line(t, "load balancers", "-");
            }
            for (int i = 0; i < lbs.size(); i++) {
                ServicePortStatus.LoadBalancer lb = lbs.get(i);
                line(t, i == 0 ? "load balancers" : "", (lb.id().isEmpty() ? "(not on the host)" : lb.id()) + "  "
                        + lb.frontend() + " " + lb.kind() + (lb.dsr() ? " DSR" : "")
                        + (lb.sessionAffinity() ? " session-affinity" : "") + (lb.current() ? "" : " (to be updated)"));
            }
            if (p.lastChange() != null) {
                line(t, "last change", p.lastChange() + (p.programmedAt() == null ? ""
                        : ", programmed " + p.programmedAt()) + (p.latencyMillis() == null ? ""
                        : " (latency " + p.latencyMillis() + " ms)"));
            }
            ServicePortStatus.LastError e = p.lastError();
            if (e != null) {
                line(t, "last error", e.at() + " " + e.op() + " " + e.object() + ": " + (e.hresult().isEmpty()
                        ? e.message() : e.hresult() + " " + e.name() + ": " + e.cause() + " (attempt "
                        + e.attempts() + ")"));
                if (!e.fix().isEmpty()) {
                    line(t, "fix", e.fix());
                }
            }
            p.notes().forEach(n -> line(t, "note", n));
        }
        return t.toString();
    }

    private static void line(StringBuilder t, String label, String value) {
        t.append("  ").append(String.format("%-15s", label)).append(value).append('\n');
    }
}
