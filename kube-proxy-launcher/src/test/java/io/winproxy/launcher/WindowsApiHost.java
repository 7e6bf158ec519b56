package io.winproxy.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Where the launcher's tests on a Windows API run Windows programs: directly on Windows, or under Wine on Linux (the
 * Wine that {@code src/build/wine.sh} found or fetched, named in {@code target/wine.properties}), in a prefix of its
 * own in a temporary folder, with WINEDEBUG=-all. A Wine host keeps one Windows process alive ({@code harness hold})
 * for its lifetime, so that Wine's service manager and the services it started survive between two commands; closing
 * it ends every Wine process of the prefix ({@code wineserver -k}, then {@code -w}, each bounded) and deletes the
 * prefix. Every wait is bounded.
 */
abstract sealed class WindowsApiHost implements AutoCloseable {
    /** The Windows programs of the tests: {@code harness.exe} and the stand-in {@code java.exe} (src/test/c). */
    static final Path TOOLS = Path.of(System.getProperty("winproxy.test-tools", "target/test-tools"));

    /** How often a program the host never started is launched again before its result is taken as it is. */
    private static final int LAUNCH_RETRIES = 2;

    record Result(int exitCode, String stdout, String stderr) {
    }

    /**
     * A host for this machine, or a skipped test (one line saying why) where neither Windows nor Wine is available.
     */
    static WindowsApiHost open() throws IOException, InterruptedException {
        if (System.getProperty("os.name").startsWith("Windows")) {
            return new Native();
        }
        Properties wine = new Properties();
        Path file = Path.of(System.getProperty("wine.properties", "target/wine.properties"));
        if (Files.exists(file)) {
            try (InputStream in = Files.newInputStream(file)) {
                wine.load(in);
            }
        }
        String loader = wine.getProperty("wine.loader");
        assumeTrue(loader != null, () -> "Wine is not available: "
                + wine.getProperty("wine.unavailable", file + " is missing (src/build/wine.sh did not run)"));
        return new Wine(Path.of(loader), Path.of(wine.getProperty("wine.server")));
    }

    /** The path of a file of this machine as Windows programs on this host name it. */
    abstract String windowsPath(Path path);

    /**
     * Runs a Windows program (a path of this machine, or a name Windows finds such as {@code sc}) to its end within
     * the timeout, with JAVA_HOME, WINPROXY_JAVA_HOME and WINPROXY_JAVA_OPTS removed and the given variables added.
     */
    Result run(Duration timeout, Map<String, String> environment, String program, String... args)
            throws IOException, InterruptedException {
        Result result = runOnce(timeout, environment, program, args);
        for (int retry = 1; retry <= LAUNCH_RETRIES && neverStarted(result); retry++) {
            System.err.printf("%s %s was not started by the host (%s); launch %d of %d%n", program,
                    String.join(" ", args), result.stderr().strip(), retry + 1, LAUNCH_RETRIES + 1);
            Thread.sleep(1_000);
            result = runOnce(timeout, environment, program, args);
        }
        return result;
    }

    /**
     * True when the host could not start the program at all, so that it did nothing: a result of the host, not of the
     * program (the program's own failures are never retried).
     */
    abstract boolean neverStarted(Result result);

    private Result runOnce(Duration timeout, Map<String, String> environment, String program, String... args)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(prefix());
        command.add(program);
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        configure(builder.environment());
        builder.environment().keySet().removeAll(List.of("JAVA_HOME", "WINPROXY_JAVA_HOME", "WINPROXY_JAVA_OPTS"));
        builder.environment().putAll(environment);
        Path out = Files.createTempFile("windows-api-host", ".out");
        Path err = Files.createTempFile("windows-api-host", ".err");
        try {
            Process process = builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(command + " did not end within " + timeout + "; stderr: "
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.ISO_8859_1),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** What goes before the program on the command line: nothing on Windows, the Wine loader on Linux. */
    abstract List<String> prefix();

    abstract void configure(Map<String, String> environment);

    private static java.io.File nullDevice() {
        return new java.io.File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    @Override
    public abstract void close() throws IOException, InterruptedException;

    /** Windows itself. */
    static final class Native extends WindowsApiHost {
        @Override
        String windowsPath(Path path) {
            return path.toAbsolutePath().toString();
        }

        @Override
        List<String> prefix() {
            return List.of();
        }

        @Override
        void configure(Map<String, String> environment) {
        }

        @Override
        boolean neverStarted(Result result) {
            return false;
        }

        @Override
        public void close() {
        }
    }

    /** Wine on Linux, in a prefix of its own. */
    static final class Wine extends WindowsApiHost {
        private static final Duration PREFIX_CREATION = Duration.ofMinutes(3);
        private final Path loader;
        private final Path server;
        private final Path prefix;
        private final Process keeper;

        Wine(Path loader, Path server) throws IOException, InterruptedException {
            this.loader = loader;
            this.server = server;
            this.prefix = Files.createTempDirectory("winproxy-wine-prefix");
            // creates the prefix (wineboot), bounded
            Result boot = run(PREFIX_CREATION, Map.of(), "cmd", "/c", "exit", "0");
            assertThat(boot.exitCode()).as("creating the Wine prefix: %s", boot.stderr()).isZero();
            // Wine's services.exe gives a service 10 s to connect and 10 s more to report its first status; Windows'
            // SCM gives 30 s (ServicesPipeTimeout). Under a loaded CI machine 10 s is too strict, so the prefix gets
            // Windows' default (Wine reads the value as a string) and a fresh session that reads it at start.
            Result timeout = run(Duration.ofSeconds(60), Map.of(), "reg", "add",
                    "HKLM\\System\\CurrentControlSet\\Control", "/v", "ServicesPipeTimeout", "/t", "REG_SZ", "/d",
                    "30000", "/f");
            assertThat(timeout.exitCode()).as("setting ServicesPipeTimeout: %s%s", timeout.stdout(), timeout.stderr())
                    .isZero();
            server("-w");
            ProcessBuilder hold = new ProcessBuilder(loader.toString(), TOOLS.resolve("harness.exe").toString(), "hold")
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
            configure(hold.environment());
            keeper = hold.start();
        }

        @Override
        String windowsPath(Path path) {
            return "Z:" + path.toAbsolutePath().toString().replace('/', '\\');
        }

        @Override
        List<String> prefix() {
            return List.of(loader.toString());
        }

        @Override
        void configure(Map<String, String> environment) {
            environment.put("WINEPREFIX", prefix.toString());
            environment.put("WINEDEBUG", "-all");
            environment.put("WINEDLLOVERRIDES", "winemenubuilder.exe=d");
            environment.remove("DISPLAY");
            environment.remove("WAYLAND_DISPLAY");
        }

        /**
         * Wine's loader hands a program it cannot load to {@code start.exe /exec}, and that prints this line and ends
         * with 1 when it cannot start it either. "Internal error" is a failure of Wine's process creation seen once in
         * CI ({@code sc create} after a 50-second stop scenario) and never reproduced; "File not found" or "Bad EXE
         * format" are failures of the program's file and are not retried.
         */
        @Override
        boolean neverStarted(Result result) {
            return result.exitCode() == 1 && result.stderr().contains("ShellExecuteEx failed: Internal error");
        }

        @Override
        public void close() throws IOException, InterruptedException {
            try (OutputStream stdin = keeper.getOutputStream()) {
                stdin.flush();
            } catch (IOException alreadyGone) {
                // the keeper ended already; wineserver -k below ends the rest
            }
            keeper.waitFor(10, TimeUnit.SECONDS);
            server("-k");
            server("-w");
            keeper.destroyForcibly();
            // the wineserver's socket folder, e.g. /tmp/wine-AbC123, is named in the prefix's file "wineserver"
            Path socketName = prefix.resolve("wineserver");
            if (Files.isRegularFile(socketName)) {
                String folder = Files.readString(socketName, StandardCharsets.US_ASCII).trim();
                if (folder.matches("wine-[A-Za-z0-9]+")) {
                    delete(Path.of(System.getenv().getOrDefault("TMPDIR", "/tmp"), folder));
                }
            }
            delete(prefix);
        }

        /**
         * Runs this prefix's wineserver with {@code option} ({@code -k} ends its programs, {@code -w} waits for it to
         * exit), 30 s at most.
         */
        private void server(String option) throws IOException, InterruptedException {
            ProcessBuilder builder = new ProcessBuilder(server.toString(), option)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
            configure(builder.environment());
            Process process = builder.start();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }

        private static void delete(Path tree) throws IOException {
            if (!Files.exists(tree)) {
                return;
            }
            try (Stream<Path> files = Files.walk(tree)) {
                files.sorted(Comparator.reverseOrder()).forEach(file -> {
                    try {
                        Files.deleteIfExists(file);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
            }
        }
    }
}
