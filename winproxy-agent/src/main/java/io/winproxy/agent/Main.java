package io.winproxy.agent;

import io.winproxy.agent.cli.CliContext;
import io.winproxy.agent.cli.RootCommand;
import io.winproxy.agent.cli.ShutdownSignal;
import io.winproxy.agent.cli.UsageException;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.DemoException;
import io.winproxy.agent.kube.KubeClientException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The jar's entry point and the only place that calls {@code System.exit}. Exit codes: 0 success; 1 runtime
 * failure; 2 invalid flags or configuration. Errors are one line on stderr naming the flag or field, never a stack
 * trace (that goes to the debug log).
 */
public final class Main {
    private static final Logger logger = LoggerFactory.getLogger(Main.class);

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    private final CliContext context;

    public Main(CliContext context) {
        this.context = context;
    }

    public static void main(String[] args) {
        ShutdownSignal shutdown = new ShutdownSignal(true);
        int code = new Main(new CliContext(System.out, System.err, System.getenv(), shutdown)).run(args);
        if (!shutdown.fired()) {
            System.exit(code);
        }
    }

    /** Parses and runs one command line; returns the exit code. */
    public int run(String... args) {
        CommandLine cl = ProxyFlags.prepare(new CommandLine(new RootCommand(context)));
        cl.setOut(new PrintWriter(context.out(), true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(context.err(), true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((e, argv) -> {
            context.err().println("winproxy: " + firstLine(e.getMessage()));
            return EXIT_USAGE;
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> handle(e));
        return cl.execute(args);
    }

    private int handle(Exception e) {
        PrintStream err = context.err();
        if (e instanceof ConfigException || e instanceof UsageException || e instanceof KubeClientException) {
            err.println("winproxy: " + firstLine(e.getMessage()));
            return EXIT_USAGE;
        }
        if (e instanceof DemoException && e.getMessage() != null && e.getMessage().startsWith("--")) {
            err.println("winproxy: " + firstLine(e.getMessage()));
            return EXIT_USAGE;
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return EXIT_FAILURE;
        }
        logger.debug("Command failed", e);
        err.println("winproxy: " + firstLine(e.getMessage() != null ? e.getMessage() : e.toString()));
        return EXIT_FAILURE;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int nl = message.indexOf('\n');
        return (nl < 0 ? message : message.substring(0, nl)).strip();
    }
}
