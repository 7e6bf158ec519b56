package io.winproxy.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in README.md and docs/*.md points at a file that exists, and every {@code #anchor} (in the
 * same page or another Markdown page) at a heading or HTML anchor there, by GitHub's anchor rules.
 */
class DocumentationLinksTest {
    private final Path root = Path.of(System.getProperty("winproxy.root", "..")).toAbsolutePath().normalize();

    @Test
    void everyRelativeLinkInTheDocumentationResolves() throws IOException {
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        for (Path page : pages) {
            broken.addAll(brokenLinks(page));
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    /**
     * Messages point operators at documentation sections ("docs/troubleshooting.md#host-mac", the fix of a
     * {@code winproxy check} FAIL): every such reference in the modules' main code names a page and an anchor that
     * exist.
     */
    @Test
    void everyDocsSectionTheCodeNamesExists() throws IOException {
        java.util.regex.Pattern ref = java.util.regex.Pattern.compile("docs/([a-z0-9-]+\\.md)#([a-z0-9_-]+)");
        List<String> broken = new ArrayList<>();
        int found = 0;
        try (Stream<Path> files = Files.walk(root)) {
            List<Path> sources = files.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> root.relativize(p).toString().replace('\\', '/').matches("[^/]+/src/main/java/.*"))
                    .toList();
            for (Path source : sources) {
                java.util.regex.Matcher m = ref.matcher(Files.readString(source, StandardCharsets.UTF_8));
                while (m.find()) {
                    found++;
                    Path page = root.resolve("docs").resolve(m.group(1));
                    if (!Files.exists(page) || !MarkdownPage.parse(Files.readString(page, StandardCharsets.UTF_8))
                            .anchors().contains(m.group(2))) {
                        broken.add(source.getFileName() + " -> docs/" + m.group(1) + "#" + m.group(2));
                    }
                }
            }
        }
        assertThat(found).as("references found").isPositive();
        assertThat(broken).as("sections named in code that do not exist").isEmpty();
    }

    @Test
    void theIndexLinksEveryGuideInTheDocsFolder() throws IOException {
        String index = Files.readString(root.resolve("docs/index.md"), StandardCharsets.UTF_8);
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            List<String> unlinked = docs.map(p -> p.getFileName().toString())
                    .filter(name -> name.endsWith(".md") && !name.equals("index.md"))
                    .filter(name -> !index.contains("(" + name + ")"))
                    .toList();
            assertThat(unlinked).as("guides missing from docs/index.md").isEmpty();
        }
    }

    @Test
    void githubsAnchorRulesAreFollowed() {
        assertThat(MarkdownPage.slug("`hns explain FILE [-o json]`")).isEqualTo("hns-explain-file--o-json");
        assertThat(MarkdownPage.slug("Stopping: graceful shutdown")).isEqualTo("stopping-graceful-shutdown");
        assertThat(MarkdownPage.slug("Linux-only and removed flags (accepted, one warning each, no effect)"))
                .isEqualTo("linux-only-and-removed-flags-accepted-one-warning-each-no-effect");
        assertThat(MarkdownPage.slug("The [overlay](x.md) source_VIP")).isEqualTo("the-overlay-source_vip");
        MarkdownPage page = MarkdownPage.parse("# Title\n## Usage\n## Usage\n```\n# not a heading\n[x](gone.md)\n```\n"
                + "See [it](#usage-1) and `[code](nope.md)`.\n[ref]: other.md#part\n");
        assertThat(page.anchors()).containsExactly("title", "usage", "usage-1");
        assertThat(page.links()).containsExactly("#usage-1", "other.md#part");
    }

    @Test
    void aDeadLinkOrAMissingAnchorIsReported(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("a.md"), "# A\n## Exit codes\n[ok](b.md#there) [ok](#exit-codes)\n"
                + "[gone](c.md) [no anchor](b.md#elsewhere) [here](#nowhere)\n");
        Files.writeString(dir.resolve("b.md"), "# B\n## There\n");
        assertThat(brokenLinks(dir.resolve("a.md"))).containsExactly("a.md -> c.md (no such file)",
                "a.md -> b.md#elsewhere (no such anchor)", "a.md -> #nowhere (no such anchor)");
    }

    static List<String> brokenLinks(Path page) throws IOException {
        List<String> broken = new ArrayList<>();
        MarkdownPage parsed = MarkdownPage.parse(Files.readString(page, StandardCharsets.UTF_8));
        for (String target : parsed.links()) {
            if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                continue;
            }
            int hash = target.indexOf('#');
            String file = hash >= 0 ? target.substring(0, hash) : target;
            String anchor = hash >= 0 ? target.substring(hash + 1) : "";
            Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
            if (!Files.exists(resolved)) {
                broken.add(page.getFileName() + " -> " + target + " (no such file)");
                continue;
            }
            if (!anchor.isEmpty() && resolved.toString().endsWith(".md") && !MarkdownPage.parse(
                    Files.readString(resolved, StandardCharsets.UTF_8)).anchors().contains(anchor)) {
                broken.add(page.getFileName() + " -> " + target + " (no such anchor)");
            }
        }
        return broken;
    }
}
