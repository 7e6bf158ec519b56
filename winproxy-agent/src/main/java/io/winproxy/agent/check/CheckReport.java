package io.winproxy.agent.check;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code winproxy check} found: every group, in order, either run (with its results) or not run (and why).
 * Immutable.
 */
public record CheckReport(List<Section> sections) {
    public CheckReport {
        sections = List.copyOf(sections);
    }

    /**
     * One group of the report.
     *
     * @param notRun why the group did not run ("" when it ran), e.g. "not asked for: give --probe-hns"
     */
    public record Section(CheckGroup group, String notRun, List<CheckResult> results) {
        public Section {
            notRun = notRun == null ? "" : notRun;
            results = List.copyOf(results);
        }

        public boolean ran() {
            return notRun.isEmpty();
        }

        /** The worst verdict of the group; PASS when it did not run or found nothing. */
        public CheckStatus status() {
            CheckStatus worst = CheckStatus.PASS;
            for (CheckResult r : results) {
                worst = worst.worse(r.status());
            }
            return worst;
        }

        public long count(CheckStatus status) {
            return results.stream().filter(r -> r.status() == status).count();
        }
    }

    /** Collects sections group by group; a group never added is reported as not run with the given reason. */
    public static final class Builder {
        private final Map<CheckGroup, Section> sections = new EnumMap<>(CheckGroup.class);

        public Builder ran(CheckGroup group, List<CheckResult> results) {
            sections.put(group, new Section(group, "", results));
            return this;
        }

        public Builder notRun(CheckGroup group, String why) {
            sections.put(group, new Section(group, why, List.of()));
            return this;
        }

        public boolean has(CheckGroup group) {
            return sections.containsKey(group);
        }

        public CheckReport build() {
            List<Section> out = new ArrayList<>();
            for (CheckGroup g : CheckGroup.values()) {
                out.add(sections.getOrDefault(g, new Section(g, "not run", List.of())));
            }
            return new CheckReport(out);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Every result of every group, in order. */
    public List<CheckResult> results() {
        return sections.stream().flatMap(s -> s.results().stream()).toList();
    }

    public List<CheckResult> failures() {
        return results().stream().filter(r -> r.status() == CheckStatus.FAIL).toList();
    }

    /** FAIL results per group (every group present, 0 when none), for the gauge. */
    public Map<CheckGroup, Integer> failuresByGroup() {
        Map<CheckGroup, Integer> m = new EnumMap<>(CheckGroup.class);
        for (Section s : sections) {
            m.put(s.group(), (int) s.count(CheckStatus.FAIL));
        }
        return m;
    }

    public long count(CheckStatus status) {
        return results().stream().filter(r -> r.status() == status).count();
    }

    /** 0 when nothing FAILs, 1 when something does: the exit code of {@code winproxy check}. */
    public int exitCode() {
        return failures().isEmpty() ? 0 : 1;
    }

    /** {@code check: 12 PASS, 1 WARN, 2 FAIL (capabilities, reachability not run)}. */
    public String summary() {
        List<String> notRun = sections.stream().filter(s -> !s.ran()).map(s -> s.group().name()).toList();
        return "check: " + count(CheckStatus.PASS) + " PASS, " + count(CheckStatus.WARN) + " WARN, "
                + count(CheckStatus.FAIL) + " FAIL" + (notRun.isEmpty() ? "" : " (" + String.join(", ", notRun)
                + " not run)");
    }
}
