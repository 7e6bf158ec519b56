package io.winproxy.agent.cds;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 27: the class-data-sharing archive is versioned by the jar and runtime, built by a real training run of the
 * jar under {@code -XX:ArchiveClassesAtExit}, moved into place only when its header is a CDS archive's, rebuilt when
 * unreadable, and recorded in {@code jvm-cds.options}, which a real JVM then accepts. The jar is a small one whose
 * main class is {@link TrainingStandIn} (the real agent's training run takes several seconds).
 */
class SharedArchiveTest {
    private static final Path JAVA_HOME = Path.of(System.getProperty("java.home"));
    private static final String VM = System.getProperty("java.vm.version");

    @TempDir
    Path home;

    @Test
    void theKeyFollowsTheJarItsClassPathAndTheRuntime() throws IOException {
        Path jar = jar(home.resolve("winproxy-agent.jar"), "lib/dep.jar");
        Files.createDirectories(home.resolve("lib"));
        Files.writeString(home.resolve("lib/dep.jar"), "one");
        Path first = SharedArchive.of(jar, JAVA_HOME, 17, VM).archive();

        assertThat(SharedArchive.of(jar, JAVA_HOME, 17, VM).archive()).isEqualTo(first);
        assertThat(first.getFileName().toString()).matches("winproxy-[0-9a-f]{16}\\.jsa");
        assertThat(first.getParent()).isEqualTo(jar.toAbsolutePath().getParent());
        Files.writeString(home.resolve("lib/dep.jar"), "two");
        assertThat(SharedArchive.of(jar, JAVA_HOME, 17, VM).archive()).as("a changed Class-Path jar")
                .isNotEqualTo(first);
        assertThat(SharedArchive.of(jar, JAVA_HOME, 17, VM + "-other").archive()).as("another runtime")
                .isNotEqualTo(SharedArchive.of(jar, JAVA_HOME, 17, VM).archive());
    }

    @Test
    void theOptionsNameTheArchiveQuotedAndAddAutoCreateOnlyWhereTheRuntimeHasIt() throws IOException {
        Path jar = jar(home.resolve("with space").resolve("winproxy-agent.jar"), null);
        SharedArchive on17 = SharedArchive.of(jar, JAVA_HOME, 17, VM);
        String path = on17.archive().toString().replace('\\', '/');

        assertThat(on17.optionsText()).contains("\"-XX:SharedArchiveFile=" + path + "\"\n")
                .doesNotContain("AutoCreateSharedArchive");
        assertThat(SharedArchive.of(jar, JAVA_HOME, 21, VM).optionsText())
                .contains("-XX:+AutoCreateSharedArchive");
    }

    @Test
    void aTrainingRunBuildsTheArchiveWhichARealJvmMapsAndAnUnreadableOneIsRebuilt() throws Exception {
        Path jar = jar(home.resolve("winproxy-agent.jar"), null);
        SharedArchive archive = SharedArchive.of(jar, JAVA_HOME, Runtime.version().feature(), VM);
        assertThat(archive.current()).isFalse();

        assertThat(archive.ensure()).isTrue();

        assertThat(archive.current()).isTrue();
        assertThat(SharedArchive.readable(archive.archive())).isTrue();
        assertThat(Files.readString(archive.optionsFile())).isEqualTo(archive.optionsText());
        assertThat(Files.list(home).map(p -> p.getFileName().toString())).as("no temporary file left")
                .noneMatch(n -> n.endsWith(".tmp"));
        String mapped = run(jar, "@" + archive.optionsFile(), "-Xshare:on", "-Xlog:cds=info");
        assertThat(mapped).as("the JVM maps the archive with -Xshare:on (it fails otherwise)")
                .contains("trained").contains("Mapped dynamic region");
        assertThat(archive.ensure()).as("current: nothing to do").isFalse();

        Files.writeString(archive.archive(), "not an archive");
        assertThat(archive.current()).isFalse();
        assertThat(archive.ensure()).isTrue();
        assertThat(SharedArchive.readable(archive.archive())).isTrue();
    }

    @Test
    void anOlderArchiveIsDeletedWhenTheJarChanges() throws Exception {
        Path jar = jar(home.resolve("winproxy-agent.jar"), null);
        SharedArchive old = SharedArchive.of(jar, JAVA_HOME, Runtime.version().feature(), VM);
        old.ensure();
        Files.writeString(home.resolve("stale-marker.txt"), "x");
        Path upgraded = jar(home.resolve("winproxy-agent.jar"), "lib/new.jar");
        SharedArchive current = SharedArchive.of(upgraded, JAVA_HOME, Runtime.version().feature(), VM);

        assertThat(current.current()).isFalse();
        current.ensure();

        assertThat(current.archive()).exists();
        assertThat(old.archive()).doesNotExist();
        assertThat(Files.readString(current.optionsFile())).contains(current.archive().getFileName().toString());
    }

    @Test
    void aFailedTrainingRunLeavesAnOptionsFileThatNamesNoArchiveSoLaunchersStillStart() throws Exception {
        Path jar = home.resolve("winproxy-agent.jar");
        Files.write(jar, new byte[] {'P', 'K', 3, 4});

        assertThatThrownBy(() -> SharedArchive.of(jar, JAVA_HOME, 17, VM)).isInstanceOf(IOException.class);
        Path good = jar(jar, null);
        SharedArchive archive = SharedArchive.of(good, JAVA_HOME, Runtime.version().feature(), VM);
        Files.writeString(home.resolve("jvm.options"), "-XX:+ThisOptionDoesNotExist\n");

        assertThatThrownBy(archive::ensure).isInstanceOf(IOException.class).hasMessageContaining("exit code");
        assertThat(Files.readString(archive.optionsFile())).startsWith("# no class-data-sharing archive");
        assertThat(run(good, "@" + archive.optionsFile())).contains("trained");
    }

    /** A jar whose main class is {@link TrainingStandIn}, with {@code classPath} in its manifest when not null. */
    private static Path jar(Path file, String classPath) throws IOException {
        Files.createDirectories(file.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, TrainingStandIn.class.getName());
        if (classPath != null) {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        String entry = TrainingStandIn.class.getName().replace('.', '/') + ".class";
        try (OutputStream out = Files.newOutputStream(file);
             JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.putNextEntry(new JarEntry(entry));
            try (var in = TrainingStandIn.class.getClassLoader().getResourceAsStream(entry)) {
                in.transferTo(jar);
            }
            jar.closeEntry();
        }
        return file;
    }

    private static String run(Path jar, String... options) throws Exception {
        var command = new java.util.ArrayList<String>();
        command.add(JAVA_HOME.resolve("bin").resolve("java").toString());
        command.addAll(java.util.List.of(options));
        command.addAll(java.util.List.of("-jar", jar.toString()));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}
