package io.winproxy.agent.cds;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The class-data-sharing archive of one agent jar and one Java runtime (issue 27): the classes a start loads, parsed
 * and verified once and mapped by every later start, which then reaches its first sync sooner.
 *
 * <p>Beside the jar, in its folder (the install directory): {@code winproxy-KEY.jsa}, where KEY is the first 16 hex
 * digits of the SHA-256 of the jar, of every jar its {@code Class-Path} names and of the runtime's version and home,
 * so that an upgraded jar or runtime never maps a stale archive; and {@code jvm-cds.options}, the Java argument file
 * every launcher passes after {@code jvm.options} ({@code "-XX:SharedArchiveFile=..."}, plus
 * {@code -XX:+AutoCreateSharedArchive} on a runtime that has it, Java 19 and later). A runtime that finds the archive
 * stale or unreadable ignores it (one warning on stderr) and starts as without it.
 *
 * <p>{@link #ensure()} builds the archive when the current one is missing or unreadable: a training run of this jar
 * ({@code demo --once} where the demo is part of the build, else {@code plan --example-cluster --hns emulated}) with
 * {@code -XX:ArchiveClassesAtExit} writes it under a temporary name, which replaces the archive in one atomic move once
 * its header is checked; then {@code jvm-cds.options} is replaced the same way and older archives are deleted.
 */
public final class SharedArchive {
    /** The argument file the launchers pass when it exists. */
    public static final String OPTIONS_FILE = "jvm-cds.options";
    /** The shipped JVM defaults, beside the jar. */
    public static final String JVM_OPTIONS_FILE = "jvm.options";
    private static final String PREFIX = "winproxy-";
    private static final String SUFFIX = ".jsa";
    /** The magic numbers of a HotSpot CDS archive's header: dynamic (top) and static (base) archives. */
    private static final int DYNAMIC_MAGIC = 0xf00baba8;
    private static final int STATIC_MAGIC = 0xf00baba2;
    private static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(3);

    private final Path jar;
    private final Path javaHome;
    private final int javaFeature;
    private final String key;

    private SharedArchive(Path jar, Path javaHome, int javaFeature, String key) {
        this.jar = jar;
        this.javaHome = javaHome;
        this.javaFeature = javaFeature;
        this.key = key;
    }

    /** The archive of the running jar and runtime; empty when the agent does not run from a jar (e.g. in tests). */
    public static Optional<SharedArchive> ofRunningJar() throws IOException {
        Path jar;
        try {
            var source = SharedArchive.class.getProtectionDomain().getCodeSource();
            if (source == null) {
                return Optional.empty();
            }
            jar = Path.of(source.getLocation().toURI());
        } catch (URISyntaxException | IllegalArgumentException e) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(jar) || !jar.getFileName().toString().endsWith(".jar")) {
            return Optional.empty();
        }
        return Optional.of(of(jar, Path.of(System.getProperty("java.home")), Runtime.version().feature(),
                System.getProperty("java.vm.version", "")));
    }

    /** The archive of {@code jar} run by the runtime at {@code javaHome} ({@code vmVersion}, major {@code feature}). */
    static SharedArchive of(Path jar, Path javaHome, int feature, String vmVersion) throws IOException {
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
        List<Path> jars = new ArrayList<>(List.of(jar));
        jars.addAll(classPathOf(jar));
        byte[] buffer = new byte[1 << 16];
        for (Path j : jars) {
            sha.update(j.getFileName().toString().getBytes(StandardCharsets.UTF_8));
            if (Files.isRegularFile(j)) {
                try (InputStream in = Files.newInputStream(j)) {
                    for (int n; (n = in.read(buffer)) > 0; ) {
                        sha.update(buffer, 0, n);
                    }
                }
            }
        }
        sha.update((vmVersion + "\n" + javaHome.toAbsolutePath()).getBytes(StandardCharsets.UTF_8));
        return new SharedArchive(jar.toAbsolutePath(), javaHome, feature,
                HexFormat.of().formatHex(sha.digest()).substring(0, 16));
    }

    private static List<Path> classPathOf(Path jar) throws IOException {
        List<Path> out = new ArrayList<>();
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String classPath = manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
            if (classPath != null) {
                for (String entry : classPath.trim().split("\\s+")) {
                    if (!entry.isEmpty()) {
                        out.add(jar.resolveSibling(entry));
                    }
                }
            }
        }
        return out;
    }

    /** {@code winproxy-KEY.jsa} beside the jar. */
    public Path archive() {
        return jar.resolveSibling(PREFIX + key + SUFFIX);
    }

    /** {@code jvm-cds.options} beside the jar. */
    public Path optionsFile() {
        return jar.resolveSibling(OPTIONS_FILE);
    }

    /**
     * Whether the archive exists and starts with a CDS header, and {@code jvm-cds.options} names it: what a launch
     * needs to map it.
     */
    public boolean current() {
        return readable(archive()) && optionsText().equals(readQuietly(optionsFile()));
    }

    /**
     * Makes the archive current: nothing when it is; otherwise builds it (a training run of this jar, a few
     * seconds of CPU) and records it in {@code jvm-cds.options}.
     *
     * @return true when the archive was built now
     * @throws IOException when the folder is not writable or the training run fails; {@code jvm-cds.options} is then
     *                     left as it was, or created naming no archive, so that launchers that always pass it start
     */
    public boolean ensure() throws IOException, InterruptedException {
        if (current()) {
            return false;
        }
        Path archive = archive();
        if (!readable(archive)) {
            try {
                build(archive);
            } catch (IOException | RuntimeException e) {
                if (!Files.exists(optionsFile())) {
                    writeAtomically(optionsFile(), "# no class-data-sharing archive: " + oneLine(e) + "\n");
                }
                throw e;
            }
        }
        writeAtomically(optionsFile(), optionsText());
        deleteOlderArchives(archive);
        return true;
    }

    private void build(Path archive) throws IOException, InterruptedException {
        Path temporary = archive.resolveSibling(archive.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        List<String> command = new ArrayList<>();
        command.add(javaHome.resolve("bin").resolve(isWindows() ? "java.exe" : "java").toString());
        Path jvmOptions = jar.resolveSibling(JVM_OPTIONS_FILE);
        if (Files.isRegularFile(jvmOptions)) {
            command.add("@" + jvmOptions);
        }
        command.add("-XX:ArchiveClassesAtExit=" + temporary);
        command.add("-jar");
        command.add(jar.toString());
        command.addAll(trainingRun());
        Path log = Files.createTempFile("winproxy-cds-training", ".log");
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.PIPE).start();
            p.getOutputStream().close();
            if (!p.waitFor(TRAINING_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("the training run did not end within " + TRAINING_TIMEOUT.toSeconds() + " s");
            }
            if (p.exitValue() != 0 || !readable(temporary)) {
                throw new IOException("the training run ended with exit code " + p.exitValue() + " and "
                        + (readable(temporary) ? "an archive" : "no archive") + " (" + lastLine(log) + ")");
            }
            // The JVM writes it read-only; Windows would refuse to replace or delete it later.
            temporary.toFile().setWritable(true, true);
            move(temporary, archive);
        } finally {
            Files.deleteIfExists(log);
            Files.deleteIfExists(temporary);
        }
    }

    /**
     * What the training run does: the demo's first sync where the demo is part of the build (it loads the client,
     * informers, sync loop and dataplane classes a start loads), else an offline plan of the example cluster.
     */
    private static List<String> trainingRun() {
        if (SharedArchive.class.getClassLoader().getResource("io/winproxy/demo/CrudApiServer.class") != null) {
            return List.of("demo", "--once", "--healthz-bind-address=", "--metrics-bind-address=");
        }
        // The emulated host: on a node the plan must neither read the real HNS nor depend on its networks.
        return List.of("plan", "--example-cluster", "--hns", "emulated", "-o", "json");
    }

    /** The text of {@code jvm-cds.options} for this archive. */
    String optionsText() {
        // Forward slashes: the argument file's quoting treats a backslash as an escape; Windows accepts both.
        String path = archive().toString().replace('\\', '/');
        StringBuilder text = new StringBuilder("# written by winproxy for ").append(jar.getFileName())
                .append(" and Java ").append(javaFeature).append(" (docs/operations.md#class-data-sharing)\n")
                .append('"').append("-XX:SharedArchiveFile=").append(path).append("\"\n");
        if (javaFeature >= 19) {
            // The runtime itself re-creates the archive when it is stale (Java 19 and later).
            text.append("-XX:+AutoCreateSharedArchive\n");
        }
        return text.toString();
    }

    /** Whether {@code file} is a regular file that starts with a CDS archive's magic number. */
    static boolean readable(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            byte[] head = in.readNBytes(4);
            if (head.length < 4) {
                return false;
            }
            int magic = ByteBuffer.wrap(head).order(ByteOrder.nativeOrder()).getInt();
            return magic == DYNAMIC_MAGIC || magic == STATIC_MAGIC;
        } catch (IOException e) {
            return false;
        }
    }

    private void deleteOlderArchives(Path keep) {
        try (DirectoryStream<Path> all = Files.newDirectoryStream(jar.getParent(), PREFIX + "*" + SUFFIX)) {
            for (Path p : all) {
                if (!p.getFileName().equals(keep.getFileName())) {
                    Files.deleteIfExists(p);
                }
            }
        } catch (IOException e) {
            // an older archive still mapped by a running process on Windows: deleted at the next build
        }
    }

    private static void writeAtomically(Path file, String text) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, text, StandardCharsets.UTF_8);
        move(temporary, file);
    }

    private static void move(Path from, Path to) throws IOException {
        try {
            Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String lastLine(Path log) {
        List<String> lines = readQuietly(log).lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "no output" : "last line: " + lines.get(lines.size() - 1).strip();
    }

    private static String oneLine(Exception e) {
        return String.valueOf(e.getMessage()).replace('\n', ' ').replace('\r', ' ');
    }

    private static boolean isWindows() {
        return System.getProperty("os.name", "").startsWith("Windows");
    }
}
