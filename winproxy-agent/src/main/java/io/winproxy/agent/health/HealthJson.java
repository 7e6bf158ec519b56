package io.winproxy.agent.health;

import io.winproxy.policy.model.IpFamily;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Locale;
import java.util.Map;

/**
 * Renders the health bodies byte for byte as kube-proxy does: Go's {@code json.Marshal} of {@code ProxyHealth}
 * (no whitespace, fixed field order) and the tab-indented service health-check body. Pure functions.
 */
public final class HealthJson {

    private HealthJson() {
    }

    /**
     * The /healthz or /livez body.
     *
     * @param nodeEligible included (even when false) for /healthz; {@code null} omits it, as for /livez
     * @param zone         the zone times are rendered in (Go renders the process's local zone)
     */
    public static String proxyHealth(ProxyHealth health, Instant lastUpdated, Boolean nodeEligible, ZoneId zone) {
        StringBuilder json = new StringBuilder(256);
        json.append("{\"lastUpdated\":\"").append(goTime(lastUpdated, zone))
                .append("\",\"currentTime\":\"").append(goTime(health.currentTime(), zone)).append('"');
        if (nodeEligible != null) {
            json.append(",\"nodeEligible\":").append(nodeEligible.booleanValue());
        }
        json.append(",\"healthy\":").append(health.healthy());
        if (!health.status().isEmpty()) {
            json.append(",\"status\":{");
            boolean first = true;
            for (Map.Entry<IpFamily, ProxyHealth.FamilyHealth> entry : health.status().entrySet()) {
                if (!first) {
                    json.append(',');
                }
                first = false;
                json.append('"').append(familyName(entry.getKey())).append("\":{\"lastUpdated\":\"")
                        .append(goTime(entry.getValue().lastUpdated(), zone)).append("\",\"healthy\":")
                        .append(entry.getValue().healthy()).append('}');
            }
            json.append('}');
        }
        return json.append('}').toString();
    }

    /** The service health-check body: tab-indented, no leading or trailing newline. */
    public static String serviceHealth(String namespace, String name, int localEndpoints, boolean proxyHealthy) {
        return "{\n"
                + "\t\"service\": {\n"
                + "\t\t\"namespace\": " + quote(namespace) + ",\n"
                + "\t\t\"name\": " + quote(name) + "\n"
                + "\t},\n"
                + "\t\"localEndpoints\": " + localEndpoints + ",\n"
                + "\t\"serviceProxyHealthy\": " + proxyHealthy + "\n"
                + "}";
    }

    /** Kubernetes' name of an IP family ({@code IPv4}, {@code IPv6}), as in JSON keys and metric labels. */
    public static String familyName(IpFamily family) {
        return family == IpFamily.IPV6 ? "IPv6" : "IPv4";
    }

    /**
     * Go's {@code time.RFC3339Nano}: trailing zeros of the fraction dropped (and the dot with them), {@code Z} for a
     * zero offset, else {@code +hh:mm}. The zero time is always {@code 0001-01-01T00:00:00Z}.
     */
    public static String goTime(Instant instant, ZoneId zone) {
        ZonedDateTime time = instant.equals(ProxyHealth.ZERO_TIME)
                ? instant.atZone(ZoneOffset.UTC) : instant.atZone(zone);
        StringBuilder text = new StringBuilder(String.format(Locale.ROOT, "%04d-%02d-%02dT%02d:%02d:%02d",
                time.getYear(), time.getMonthValue(), time.getDayOfMonth(),
                time.getHour(), time.getMinute(), time.getSecond()));
        int nanos = time.getNano();
        if (nanos != 0) {
            String fraction = String.format(Locale.ROOT, "%09d", nanos);
            int end = fraction.length();
            while (fraction.charAt(end - 1) == '0') {
                end--;
            }
            text.append('.').append(fraction, 0, end);
        }
        int offsetSeconds = time.getOffset().getTotalSeconds();
        if (offsetSeconds == 0) {
            text.append('Z');
        } else {
            int minutes = Math.abs(offsetSeconds) / 60;
            text.append(offsetSeconds < 0 ? '-' : '+')
                    .append(String.format(Locale.ROOT, "%02d:%02d", minutes / 60, minutes % 60));
        }
        return text.toString();
    }

    /** A JSON string literal; escapes what Go's {@code %q} escapes for the ASCII names Kubernetes allows. */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder(value.length() + 2).append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                case '\r' -> quoted.append("\\r");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        quoted.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
