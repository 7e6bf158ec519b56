package io.winproxy.installer;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The installer compiles against jna-platform only (ARCHITECTURE.md section 1): Maven validates a copy of the
 * project's POMs, unchanged and with a forbidden compile dependency added to the installer, and the enforcer must
 * reject the latter.
 */
class InstallerDependencyDirectionIT {
    @TempDir
    Path copy;

    @Test
    void theInstallerAsItIsPassesTheEnforcer() throws Exception {
        copyPoms();
        Run run = validateInstaller();
        assertThat(run.exitCode()).as(run.output()).isZero();
    }

    @Test
    void compilingAgainstTheAgentFailsTheBuild() throws Exception {
        copyPoms();
        Path pom = copy.resolve("installer/pom.xml");
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String packaged = "<artifactId>winproxy-agent</artifactId>\n      <scope>runtime</scope>";
        assertThat(text).as("the installer packages the agent at runtime scope").contains(packaged);
        String compiled = "<artifactId>winproxy-agent</artifactId>\n      <scope>compile</scope>";
        Files.writeString(pom, text.replace(packaged, compiled), StandardCharsets.UTF_8);
        Run run = validateInstaller();
        assertThat(run.exitCode()).as("maven must fail").isNotZero();
        assertThat(run.output()).contains("BannedDependencies").contains("io.winproxy:winproxy-agent");
    }

    @Test
    void aThirdPartyLibraryAtCompileScopeFailsTheBuild() throws Exception {
        copyPoms();
        addInstallerDependency("com.fasterxml.jackson.core", "jackson-databind", "${jackson.version}", "compile");
        Run run = validateInstaller();
        assertThat(run.exitCode()).as("maven must fail").isNotZero();
        assertThat(run.output()).contains("BannedDependencies").contains("com.fasterxml.jackson.core:jackson-databind");
    }

    private void copyPoms() throws IOException {
        Path root = Path.of(System.getProperty("winproxy.root", "..")).toAbsolutePath().normalize();
        assertThat(root.resolve("installer/pom.xml")).exists();
        Files.copy(root.resolve("pom.xml"), copy.resolve("pom.xml"));
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(p -> Files.isRegularFile(p.resolve("pom.xml"))).toList()) {
                Path target = Files.createDirectories(copy.resolve(module.getFileName()));
                Files.copy(module.resolve("pom.xml"), target.resolve("pom.xml"));
            }
        }
    }

    private void addInstallerDependency(String groupId, String artifactId, String version, String scope)
            throws IOException {
        Path pom = copy.resolve("installer/pom.xml");
        String text = Files.readString(pom, StandardCharsets.UTF_8);
        String marker = "<dependencies>";
        int at = text.indexOf(marker);
        assertThat(at).as("the installer declares dependencies").isPositive();
        String dependency = "<dependency><groupId>" + groupId + "</groupId><artifactId>" + artifactId
                + "</artifactId><version>" + version + "</version><scope>" + scope + "</scope></dependency>";
        Files.writeString(pom, text.substring(0, at + marker.length()) + dependency
                + text.substring(at + marker.length()), StandardCharsets.UTF_8);
    }

    private Run validateInstaller() throws Exception {
        boolean windows = System.getProperty("os.name").toLowerCase(Locale.ROOT).startsWith("windows");
        String executable = windows ? "mvn.cmd" : "mvn";
        String home = System.getProperty("maven.home", "");
        List<String> command = new ArrayList<>();
        command.add(home.isBlank() ? executable : Path.of(home, "bin", executable).toString());
        command.addAll(List.of("-B", "validate", "-pl", "installer", "-am"));
        String repository = System.getProperty("maven.repo.local", "");
        if (!repository.isBlank()) {
            command.add("-Dmaven.repo.local=" + repository);
        }
        Path log = copy.resolve("validate.log");
        Process process = new ProcessBuilder(command).directory(copy.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("maven validate did not finish within 5 minutes");
        }
        return new Run(process.exitValue(), Files.readString(log, StandardCharsets.UTF_8));
    }

    private record Run(int exitCode, String output) {
    }
}
