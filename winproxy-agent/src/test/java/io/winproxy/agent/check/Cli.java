package io.winproxy.agent.check;

import io.winproxy.agent.Main;
import io.winproxy.agent.cli.CliContext;
import io.winproxy.agent.cli.ShutdownSignal;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** Runs {@link Main} in-process with captured output, as the check tests need it. */
final class Cli {
    record Result(int exitCode, String out, String err) {
    }

    private Cli() {
    }

    static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = new Main(new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), Map.of(), new ShutdownSignal(false))).run(args);
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
