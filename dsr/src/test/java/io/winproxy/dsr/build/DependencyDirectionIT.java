package io.winproxy.dsr.build;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Proves that the dependency direction of ARCHITECTURE.md section 1 is enforced by the build, not by review: a copy
 * of the project's POMs (no sources) is validated by Maven with one forbidden dependency added, and the enforcer
 * must fail it. The unchanged POMs are the positive control.
 */
class DependencyDirectionIT {
    private static Path projectRoot;

    @TempDir
    Path copy;

    @BeforeAll
    static void findProject() {
        projectRoot = Path.of(System.getProperty("winproxy.root", "..")).toAbsolutePath().normalize();
        assertThat(projectRoot.resolve("vfp-policy/pom.xml")).exists();
    }

    @Test
    void theUnchangedPomsPassTheEnforcer() throws Exception {
        copyPoms();
        Result result = validate("vfp-policy,dsr");
        assertThat(result.exitCode()).as(result.output()).isZero();
    }

    /** Each forbidden edge of the dependency graph, added alone, fails the module's validation. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
        Jackson in the policy core               | vfp-policy | com.fasterxml.jackson.core:jackson-databind | compile
        Jackson in test scope of the policy core | vfp-policy | com.fasterxml.jackson.core:jackson-databind | test
        JNA in the policy core                   | vfp-policy | net.java.dev.jna:jna                        | compile
        fabric8 in the policy core               | vfp-policy | io.fabric8:kubernetes-model-core            | compile
        anything but the policy core in dsr      | dsr        | io.winproxy:hns-client                      | compile
        a third-party library in dsr             | dsr        | com.fasterxml.jackson.core:jackson-databind | runtime
        """)
    void aForbiddenDependencyFailsTheBuild(String what, String module, String artifact, String scope)
            throws Exception {
        copyPoms();
        String[] coordinates = artifact.split(":");
        addDependency(module, coordinates[0], coordinates[1], scope);
        assertBanned(validate(module), artifact);
    }

    private static void assertBanned(Result result, String artifact) {
        assertThat(result.exitCode()).as("maven must fail").isNotZero();
        assertThat(result.output()).contains("BannedDependencies").contains(artifact);
    }

    private void copyPoms() throws IOException {
        try (Stream<Path> modules = Files.list(projectRoot)) {
            for (Path dir : (Iterable<Path>) modules.filter(Files::isDirectory)::iterator) {
                Path pom = dir.resolve("pom.xml");
                if (Files.isRegularFile(pom)) {
                    Files.createDirectories(copy.resolve(dir.getFileName()));
                    Files.copy(pom, copy.resolve(dir.getFileName()).resolve("pom.xml"));
                }
            }
        }
        Files.copy(projectRoot.resolve("pom.xml"), copy.resolve("pom.xml"));
    }

    private void addDependency(String module, String groupId, String artifactId, String scope) throws IOException {
        Path pom = copy.resolve(module).resolve("pom.xml");
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String dependency = "<dependency><groupId>" + groupId + "</groupId><artifactId>" + artifactId
                + "</artifactId><version>" + versionOf(groupId) + "</version><scope>" + scope
                + "</scope></dependency>";
        int at = text.indexOf("<dependencies>");
        assertThat(at).as("%s declares dependencies", pom).isPositive();
        at += "<dependencies>".length();
        Files.writeString(pom, text.substring(0, at) + dependency + text.substring(at), StandardCharsets.UTF_8);
    }

    private static String versionOf(String groupId) {
        return switch (groupId) {
            case "io.winproxy" -> "${project.version}";
            case "io.fabric8" -> "${fabric8.version}";
            case "net.java.dev.jna" -> "${jna.version}";
            default -> "${jackson.version}";
        };
    }

    private Result validate(String modules) throws Exception {
        boolean windows = System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("win");
        String mavenHome = System.getProperty("maven.home");
        String executable = windows ? "mvn.cmd" : "mvn";
        List<String> command = new ArrayList<>();
        command.add(mavenHome == null || mavenHome.isBlank() ? executable
                : Path.of(mavenHome, "bin", executable).toString());
        command.addAll(List.of("-B", "validate", "-pl", modules));
        String localRepo = System.getProperty("maven.repo.local");
        if (localRepo != null && !localRepo.isBlank()) {
            command.add("-Dmaven.repo.local=" + localRepo);
        }
        Path log = copy.resolve("maven.log");
        Process process = new ProcessBuilder(command).directory(copy.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("maven did not finish within 5 minutes");
        }
        return new Result(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    private record Result(int exitCode, String output) {
    }
}
