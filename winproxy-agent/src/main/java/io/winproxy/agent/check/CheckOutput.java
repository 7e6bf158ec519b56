package io.winproxy.agent.check;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * The two forms of a {@link CheckReport}: text (one line per result, a heading line per group, a summary line) and
 * JSON (the same content, for scripts, the diagnostics bundle and {@code check.json}).
 *
 * <p>JSON: {@code {"status", "exitCode", "checkedAt", "counts": {"PASS","WARN","FAIL"}, "groups": [{"group",
 * "status", "ran", "notRun", "results": [{"status", "check", "message", "cause", "fix", "service", "hnsId"}]}]}}
 * with the five groups always present, in order.
 */
public final class CheckOutput {
    private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private CheckOutput() {
    }

    public static String text(CheckReport report) {
        StringBuilder b = new StringBuilder();
        for (CheckReport.Section s : report.sections()) {
            if (!s.ran()) {
                b.append("-- ").append(s.group()).append(": not run (").append(s.notRun()).append(")\n");
                continue;
            }
            b.append("-- ").append(s.group()).append(": ").append(s.status()).append('\n');
            for (CheckResult r : s.results()) {
                b.append(r.line()).append('\n');
            }
        }
        b.append(report.summary()).append('\n');
        return b.toString();
    }

    public static ObjectNode json(CheckReport report, Instant checkedAt) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("status", report.failures().isEmpty()
                ? (report.count(CheckStatus.WARN) > 0 ? "WARN" : "PASS") : "FAIL");
        root.put("exitCode", report.exitCode());
        root.put("checkedAt", checkedAt.toString());
        ObjectNode counts = root.putObject("counts");
        for (CheckStatus st : CheckStatus.values()) {
            counts.put(st.name(), report.count(st));
        }
        ArrayNode groups = root.putArray("groups");
        for (CheckReport.Section s : report.sections()) {
            ObjectNode g = groups.addObject();
            g.put("group", s.group().name());
            g.put("status", s.ran() ? s.status().name() : "NOT_RUN");
            g.put("ran", s.ran());
            g.put("notRun", s.notRun());
            ArrayNode results = g.putArray("results");
            for (CheckResult r : s.results()) {
                ObjectNode o = results.addObject();
                o.put("status", r.status().name());
                o.put("check", r.check());
                o.put("message", r.message());
                o.put("cause", r.cause());
                o.put("fix", r.fix());
                o.put("service", r.service());
                o.put("hnsId", r.hnsId());
            }
        }
        return root;
    }

    public static String jsonText(CheckReport report, Instant checkedAt) {
        try {
            return MAPPER.writeValueAsString(json(report, checkedAt));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
