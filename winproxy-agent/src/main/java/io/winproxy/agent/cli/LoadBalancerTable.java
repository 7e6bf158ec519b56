package io.winproxy.agent.cli;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import java.util.ArrayList;
import java.util.List;

/**
 * A readable table of load balancers: {@code VIP:port/protocol -> backends}, kind, flags and the owning service
 * port. Used by {@code plan -o text} and by the demo after every sync that changed something.
 */
public final class LoadBalancerTable {
    private LoadBalancerTable() {
    }

    public static String render(List<DesiredLoadBalancer> loadBalancers) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"FRONTEND", "BACKENDS", "KIND", "FLAGS", "SERVICE"});
        for (DesiredLoadBalancer lb : PlanOutput.sorted(loadBalancers)) {
            String backends = lb.backends().isEmpty() ? "(none)"
                    : String.join(",", lb.backends().stream().map(ip -> ip + ":" + lb.internalPort()).toList());
            rows.add(new String[] {lb.key().toString(), backends, lb.kind().displayName(), flags(lb),
                    lb.service().toString()});
        }
        int[] widths = new int[rows.get(0).length];
        for (String[] row : rows) {
            for (int i = 0; i < row.length; i++) {
                widths[i] = Math.max(widths[i], row[i].length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < row.length; i++) {
                line.append(row[i]);
                if (i < row.length - 1) {
                    line.append(" ".repeat(widths[i] - row[i].length() + 2));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        if (loadBalancers.isEmpty()) {
            out.append("(no load balancers)\n");
        }
        return out.toString();
    }

    /** e.g. {@code dsr,ilb,sourceIP} or {@code -}. */
    static String flags(DesiredLoadBalancer lb) {
        List<String> names = new ArrayList<>();
        if (lb.dsr()) {
            names.add("dsr");
        }
        if (lb.ipv6()) {
            names.add("ipv6");
        }
        int pm = lb.portMappingFlags();
        if ((pm & 1) != 0) {
            names.add("ilb");
        }
        if ((pm & 2) != 0) {
            names.add("localRoutedVIP");
        }
        if ((pm & 4) != 0) {
            names.add("useMux");
        }
        if ((pm & 8) != 0) {
            names.add("preserveDIP");
        }
        if ((pm & 16) != 0) {
            names.add("vipExternalIP");
        }
        if (lb.distributionType() == 1) {
            names.add("sourceIPProtocol");
        } else if (lb.distributionType() == 2) {
            names.add("sourceIP");
        }
        if (!lb.sourceVip().isEmpty()) {
            names.add("srcVIP=" + lb.sourceVip());
        }
        return names.isEmpty() ? "-" : String.join(",", names);
    }
}
