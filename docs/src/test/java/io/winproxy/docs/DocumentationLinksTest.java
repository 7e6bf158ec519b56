package io.winproxy.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Every relative link in README.md and docs/*.md points at a file that exists. */
class DocumentationLinksTest {
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

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

    private static List<String> brokenLinks(Path page) throws IOException {
        List<String> broken = new ArrayList<>();
        Matcher m = LINK.matcher(Files.readString(page, StandardCharsets.UTF_8));
        while (m.find()) {
            String target = m.group(1);
            if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*") || target.startsWith("#")) {
                continue;
            }
            String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
            if (!Files.exists(page.getParent().resolve(file))) {
                broken.add(page.getFileName() + " -> " + target);
            }
        }
        return broken;
    }
}
