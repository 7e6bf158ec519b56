package io.winproxy.docs;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of a Markdown page that links depend on: its link targets and the anchors GitHub generates for its
 * headings. Fenced code blocks are skipped (neither their "headings" nor their "links" count).
 */
record MarkdownPage(List<String> links, Set<String> anchors) {
    private static final Pattern INLINE_LINK = Pattern.compile("\\[(?:[^\\[\\]]|\\[[^\\]]*\\])*\\]\\(<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern REFERENCE_LINK = Pattern.compile("^\\s{0,3}\\[[^\\]]+\\]:\\s+<?(\\S+?)>?(?:\\s+.*)?$");
    private static final Pattern HEADING = Pattern.compile("^\\s{0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern FENCE = Pattern.compile("^\\s{0,3}(```|~~~)");

    static MarkdownPage parse(String text) {
        List<String> links = new ArrayList<>();
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        String fence = null;
        for (String line : text.split("\\R", -1)) {
            Matcher f = FENCE.matcher(line);
            if (f.find()) {
                if (fence == null) {
                    fence = f.group(1);
                    continue;
                }
                if (line.strip().startsWith(fence)) {
                    fence = null;
                    continue;
                }
            }
            if (fence != null) {
                continue;
            }
            Matcher h = HEADING.matcher(line);
            if (h.matches()) {
                String slug = slug(h.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher a = HTML_ANCHOR.matcher(line);
            while (a.find()) {
                anchors.add(a.group(1));
            }
            String prose = line.replaceAll("``[^`]*``", "").replaceAll("`[^`]*`", "``");
            Matcher l = INLINE_LINK.matcher(prose);
            while (l.find()) {
                links.add(l.group(1));
            }
            Matcher r = REFERENCE_LINK.matcher(line);
            if (r.matches()) {
                links.add(r.group(1));
            }
        }
        return new MarkdownPage(links, anchors);
    }

    /**
     * GitHub's anchor for a heading's text (github-slugger): Markdown links reduced to their text, then lower case,
     * every character that is not a letter, mark, digit, connector, space or hyphen dropped, each space a hyphen.
     */
    static String slug(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
        StringBuilder out = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                out.append('-');
            } else if (c == '-' || Character.isLetterOrDigit(c) || Character.getType(c) == Character.CONNECTOR_PUNCTUATION
                    || Character.getType(c) == Character.NON_SPACING_MARK
                    || Character.getType(c) == Character.COMBINING_SPACING_MARK) {
                out.appendCodePoint(c);
            }
        });
        return out.toString();
    }
}
