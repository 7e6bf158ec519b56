package io.winproxy.agent.logging;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Removes credentials from log text: bearer and basic authorization values, {@code token=}/{@code password=}-style
 * pairs (also as YAML {@code key: value} and JSON {@code "key":"value"}), kubeconfig key material
 * ({@code client-key-data}), passwords in URLs ({@code https://user:secret@host}) and JSON web tokens
 * (service-account tokens) anywhere. The replaced value is {@value #MASK}. Stateless; thread-safe.
 */
public final class Redactor {
    public static final String MASK = "<redacted>";

    private static final String SECRET_KEYS = "(?:access[_-]?token|refresh[_-]?token|id[_-]?token|token|password"
            + "|passwd|client[_-]?secret|secret|client[_-]?key[_-]?data|api[_-]?key)";

    private static final List<Rule> RULES = List.of(
            new Rule(Pattern.compile("(?i)(authorization[\"']?\\s*[:=]\\s*\\[?[\"']?(?:(?:bearer|basic)\\s+)?)"
                    + "[^\\s\"',;}\\]]+"), "$1" + MASK),
            new Rule(Pattern.compile("(?i)(\\bbearer\\s+)[A-Za-z0-9\\-._~+/]+=*"), "$1" + MASK),
            new Rule(Pattern.compile("(?i)([\"']?\\b" + SECRET_KEYS + "[\"']?\\s*[:=]\\s*[\"']?)"
                    + "(?!" + Pattern.quote(MASK) + ")[^\\s\"',;&}]+"), "$1" + MASK),
            new Rule(Pattern.compile("(?i)\\b([a-z][a-z0-9+.\\-]*://[^/\\s:@]+:)[^@\\s/]+@"), "$1" + MASK + "@"),
            new Rule(Pattern.compile("eyJ[A-Za-z0-9_\\-]{5,}\\.[A-Za-z0-9_\\-]{5,}\\.[A-Za-z0-9_\\-]*"), MASK));

    private record Rule(Pattern pattern, String replacement) {
    }

    private Redactor() {
    }

    /** The text with every credential replaced by {@value #MASK}; text without credentials is returned as is. */
    public static String redact(String text) {
        if (text == null || text.isEmpty()) {
            return text;
        }
        String out = text;
        for (Rule rule : RULES) {
            Matcher m = rule.pattern().matcher(out);
            if (m.find()) {
                out = m.replaceAll(rule.replacement());
            }
        }
        return out;
    }
}
