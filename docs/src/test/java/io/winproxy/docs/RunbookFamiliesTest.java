package io.winproxy.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The launcher-family table of docs/runbooks.md ("Swap only kube-proxy.exe") against docs/launcher-families.tsv, the
 * one table of families that the installer's tests use too: every family has a row, every row is a family, and each
 * row names the family's kube-proxy.exe paths, service name and log files exactly (in backticks); the Sources list
 * names each family's files with their commits.
 */
class RunbookFamiliesTest {
    private static final String SECTION = "## Swap only `kube-proxy.exe` (each launcher family)";
    private final Path root = Path.of(System.getProperty("winproxy.root", "..")).toAbsolutePath().normalize();

    /** One line of the TSV. */
    record Family(String id, String name, List<String> services, List<String> paths, List<String> logs,
            String repository, List<String> files, List<String> commits) {
    }

    static List<Family> families(Path table) throws IOException {
        List<Family> families = new ArrayList<>();
        for (String line : Files.readAllLines(table, StandardCharsets.UTF_8)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] c = line.split("\t");
            assertThat(c).as(line).hasSize(9);
            families.add(new Family(c[0], c[1], values(c[2]), values(c[3]), values(c[4]), c[6], values(c[7]),
                    values(c[8])));
        }
        return families;
    }

    private static List<String> values(String column) {
        return column.equals("-") ? List.of() : List.of(column.split(";"));
    }

    /** The family table's rows, by their first cell. */
    static Map<String, String> rows(String runbook) {
        String section = runbook.substring(runbook.indexOf(SECTION));
        section = section.substring(section.indexOf("| launcher family |"));
        Map<String, String> rows = new LinkedHashMap<>();
        for (String line : section.split("\n")) {
            if (!line.startsWith("|")) {
                break;
            }
            if (line.startsWith("| launcher family |") || line.startsWith("|---")) {
                continue;
            }
            rows.put(line.substring(2, line.indexOf(" |", 2)).strip(), line);
        }
        return rows;
    }

    @Test
    void everyFamilyHasARowNamingItsPathsServiceAndLogsAndEveryRowIsAFamily() throws IOException {
        List<Family> families = families(root.resolve("docs/launcher-families.tsv"));
        String runbook = Files.readString(root.resolve("docs/runbooks.md"), StandardCharsets.UTF_8);
        Map<String, String> rows = rows(runbook);

        assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(families.stream().map(Family::name).toList());
        String sources = runbook.substring(runbook.indexOf("### Sources"));
        List<String> missing = new ArrayList<>();
        for (Family family : families) {
            String row = rows.get(family.name());
            List<String> named = new ArrayList<>(family.paths());
            named.addAll(family.services());
            named.addAll(family.logs());
            for (String value : named) {
                if (!row.contains("`" + value + "`") && !row.contains(" `" + value + " ")) {
                    missing.add(family.name() + ": `" + value + "` not in its row");
                }
            }
            String source = sources.lines().filter(l -> l.startsWith("- " + family.name() + ":")).findFirst()
                    .orElse("");
            if (!source.contains(family.repository())) {
                missing.add(family.name() + ": no Sources line naming " + family.repository());
            }
            for (String file : family.files()) {
                if (!source.contains("`" + file + "`")) {
                    missing.add(family.name() + ": source file " + file + " not in its Sources line");
                }
            }
            for (String commit : family.commits()) {
                if (!source.contains("`" + commit + "`")) {
                    missing.add(family.name() + ": commit " + commit + " not in its Sources line");
                }
            }
        }
        assertThat(missing).isEmpty();
    }

    @Test
    void aRowThatNamesAnotherPathThanTheTableIsFound(@org.junit.jupiter.api.io.TempDir Path dir) throws IOException {
        String runbook = SECTION + "\n\n| launcher family | exe |\n|---|---|\n| X | `C:\\k\\kube-proxy.exe` |\n";
        Map<String, String> rows = rows(runbook);
        assertThat(rows).containsOnlyKeys("X");
        assertThat(rows.get("X")).contains("`C:\\k\\kube-proxy.exe`").doesNotContain("`C:\\k\\node\\kube-proxy.exe`");
        Files.writeString(dir.resolve("f.tsv"), "# c\nx\tX\t-\tC:\\a.exe\t-\tno\tr/r\tf\tc\n");
        assertThat(families(dir.resolve("f.tsv"))).singleElement()
                .satisfies(f -> assertThat(f.paths()).containsExactly("C:\\a.exe"));
    }
}
