package io.winproxy.agent.cli;

import io.winproxy.agent.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Runs {@link Main} in-process with captured output (no JVM shutdown hook, no System.exit). */
final class CliRunner {
    record Result(int exitCode, String out, String err) {
        /** The non-empty lines of stderr. */
        long errLines() {
            return err.lines().filter(l -> !l.isBlank()).count();
        }
    }

    private CliRunner() {
    }

    static Result run(Map<String, String> env, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        int code = new Main(new CliContext(outStream, errStream, env, new ShutdownSignal(false))).run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    static Result run(String... args) {
        return run(Map.of(), args);
    }
}
