package io.winproxy.agent.metrics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict parser of the Prometheus text exposition format 0.0.4, for tests: it rejects anything a Prometheus server
 * would reject or that the format forbids (bad names, bad escapes, a family split in two, a TYPE after samples,
 * duplicate series, samples that do not belong to their family's type, non-cumulative histogram buckets, a missing
 * {@code +Inf} bucket or one that disagrees with {@code _count}, a missing final newline).
 */
final class PrometheusTextParser {

    /** One sample line. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    /** A metric family: its TYPE, HELP and samples in exposition order. */
    record Family(String name, String type, String help, List<Sample> samples) {

        /** The samples named {@code sampleName} whose labels include {@code labels}. */
        List<Sample> samples(String sampleName, Map<String, String> labels) {
            return samples.stream().filter(s -> s.name().equals(sampleName))
                    .filter(s -> s.labels().entrySet().containsAll(labels.entrySet())).toList();
        }

        /** The value of the single sample with exactly these labels. */
        double value(String sampleName, Map<String, String> labels) {
            List<Sample> matching = samples.stream().filter(s -> s.name().equals(sampleName))
                    .filter(s -> s.labels().equals(labels)).toList();
            if (matching.size() != 1) {
                throw new AssertionError("expected one " + sampleName + labels + ", found " + matching);
            }
            return matching.get(0).value();
        }
    }

    private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");
    private static final Set<String> TYPES = Set.of("counter", "gauge", "histogram", "summary", "untyped");

    private PrometheusTextParser() {
    }

    static Map<String, Family> parse(String text) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("exposition does not end with a newline");
        }
        Map<String, String> types = new LinkedHashMap<>();
        Map<String, String> helps = new LinkedHashMap<>();
        Map<String, List<Sample>> samples = new LinkedHashMap<>();
        Set<String> closedFamilies = new HashSet<>();
        Set<String> seriesSeen = new HashSet<>();
        String current = null;
        int lineNumber = 0;
        for (String line : text.split("\n", -1)) {
            lineNumber++;
            if (line.isEmpty()) {
                continue;
            }
            String where = "line " + lineNumber + " \"" + line + "\": ";
            if (line.startsWith("#")) {
                String[] parts = line.split(" ", 4);
                if (parts.length >= 3 && (parts[1].equals("HELP") || parts[1].equals("TYPE"))) {
                    String family = parts[2];
                    requireName(family, where);
                    current = enterFamily(family, current, closedFamilies, where + "family " + family
                            + " appears twice");
                    if (samples.containsKey(family)) {
                        throw new IllegalArgumentException(where + parts[1] + " after samples");
                    }
                    String rest = parts.length == 4 ? parts[3] : "";
                    if (parts[1].equals("TYPE")) {
                        if (!TYPES.contains(rest) || types.put(family, rest) != null) {
                            throw new IllegalArgumentException(where + "bad or repeated TYPE");
                        }
                    } else if (helps.put(family, unescapeHelp(rest, where)) != null) {
                        throw new IllegalArgumentException(where + "repeated HELP");
                    }
                }
                continue;
            }
            Sample sample = parseSample(line, where);
            String family = familyOf(sample.name(), types);
            current = enterFamily(family, current, closedFamilies, where + "family " + family + " is interleaved");
            if (!seriesSeen.add(sample.name() + new TreeMap<>(sample.labels()))) {
                throw new IllegalArgumentException(where + "duplicate series");
            }
            samples.computeIfAbsent(family, f -> new ArrayList<>()).add(sample);
        }
        Map<String, Family> families = new LinkedHashMap<>();
        Set<String> names = new LinkedHashSet<>(types.keySet());
        names.addAll(samples.keySet());
        for (String name : names) {
            Family family = new Family(name, types.getOrDefault(name, "untyped"), helps.get(name),
                    List.copyOf(samples.getOrDefault(name, List.of())));
            if (family.type().equals("histogram")) {
                checkHistogram(family);
            }
            families.put(name, family);
        }
        return families;
    }

    /** The family a sample belongs to: its own name, or the histogram/summary whose suffixed series it is. */
    private static String familyOf(String sampleName, Map<String, String> types) {
        for (String suffix : List.of("_bucket", "_sum", "_count")) {
            if (sampleName.endsWith(suffix)) {
                String base = sampleName.substring(0, sampleName.length() - suffix.length());
                String type = types.get(base);
                if ("histogram".equals(type) || ("summary".equals(type) && !suffix.equals("_bucket"))) {
                    return base;
                }
            }
        }
        String type = types.get(sampleName);
        if ("histogram".equals(type) || "summary".equals(type)) {
            throw new IllegalArgumentException(sampleName + ": a " + type + " has no bare sample");
        }
        return sampleName;
    }

    private static void checkHistogram(Family family) {
        Map<Map<String, String>, List<Sample>> bySeries = new LinkedHashMap<>();
        for (Sample sample : family.samples()) {
            if (sample.name().endsWith("_bucket")) {
                Map<String, String> labels = new TreeMap<>(sample.labels());
                if (labels.remove("le") == null) {
                    throw new IllegalArgumentException(family.name() + ": bucket without le");
                }
                bySeries.computeIfAbsent(labels, l -> new ArrayList<>()).add(sample);
            }
        }
        bySeries.forEach((labels, buckets) -> {
            double previousBound = Double.NEGATIVE_INFINITY;
            double previousCount = 0;
            for (Sample bucket : buckets) {
                double bound = parseFloat(bucket.labels().get("le"), family.name() + " le");
                if (bound <= previousBound || bucket.value() < previousCount) {
                    throw new IllegalArgumentException(family.name() + labels + ": buckets not cumulative");
                }
                previousBound = bound;
                previousCount = bucket.value();
            }
            if (previousBound != Double.POSITIVE_INFINITY) {
                throw new IllegalArgumentException(family.name() + labels + ": no +Inf bucket");
            }
            double count = family.value(family.name() + "_count", labels);
            family.value(family.name() + "_sum", labels);
            if (count != previousCount) {
                throw new IllegalArgumentException(family.name() + labels + ": +Inf bucket != _count");
            }
        });
    }

    private static Sample parseSample(String line, String where) {
        Matcher name = METRIC_NAME.matcher(line);
        if (!name.lookingAt()) {
            throw new IllegalArgumentException(where + "bad metric name");
        }
        int i = name.end();
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                Matcher label = LABEL_NAME.matcher(line).region(i, line.length());
                if (!label.lookingAt() || line.charAt(label.end()) != '=' || line.charAt(label.end() + 1) != '"') {
                    throw new IllegalArgumentException(where + "bad label");
                }
                StringBuilder value = new StringBuilder();
                int j = label.end() + 2;
                while (line.charAt(j) != '"') {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        switch (next) {
                            case '\\' -> value.append('\\');
                            case '"' -> value.append('"');
                            case 'n' -> value.append('\n');
                            default -> throw new IllegalArgumentException(where + "bad escape");
                        }
                    } else {
                        value.append(c);
                    }
                    j++;
                }
                if (labels.put(label.group(), value.toString()) != null) {
                    throw new IllegalArgumentException(where + "duplicate label " + label.group());
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                } else if (line.charAt(i) != '}') {
                    throw new IllegalArgumentException(where + "expected , or }");
                }
            }
            i++;
        }
        if (i >= line.length() || line.charAt(i) != ' ') {
            throw new IllegalArgumentException(where + "expected one space before the value");
        }
        String[] rest = line.substring(i + 1).split(" ", -1);
        if (rest.length > 2) {
            throw new IllegalArgumentException(where + "trailing fields");
        }
        if (rest.length == 2) {
            Long.parseLong(rest[1]);
        }
        return new Sample(name.group(), labels, parseFloat(rest[0], where + "value"));
    }

    private static double parseFloat(String text, String where) {
        switch (text) {
            case "+Inf":
                return Double.POSITIVE_INFINITY;
            case "-Inf":
                return Double.NEGATIVE_INFINITY;
            case "NaN":
                return Double.NaN;
            default:
                if (!text.matches("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?")) {
                    throw new IllegalArgumentException(where + ": not a float: " + text);
                }
                return Double.parseDouble(text);
        }
    }

    private static String unescapeHelp(String help, String where) {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < help.length(); i++) {
            char c = help.charAt(i);
            if (c == '\\') {
                char next = help.charAt(++i);
                if (next == '\\') {
                    text.append('\\');
                } else if (next == 'n') {
                    text.append('\n');
                } else {
                    throw new IllegalArgumentException(where + "bad escape in HELP");
                }
            } else {
                text.append(c);
            }
        }
        return text.toString();
    }

    /**
     * Moves the parse to {@code family}, which it returns: a family the parse leaves is closed, and a closed family
     * may not come back ({@code failure} then).
     */
    private static String enterFamily(String family, String current, Set<String> closedFamilies, String failure) {
        if (!family.equals(current)) {
            if (current != null) {
                closedFamilies.add(current);
            }
            if (closedFamilies.contains(family)) {
                throw new IllegalArgumentException(failure);
            }
        }
        return family;
    }

    private static void requireName(String name, String where) {
        if (!METRIC_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(where + "bad metric name " + name);
        }
    }
}
