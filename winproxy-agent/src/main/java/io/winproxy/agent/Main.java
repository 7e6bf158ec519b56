package io.winproxy.agent;

import io.winproxy.agent.cds.CdsCommand;
import io.winproxy.agent.check.CheckCommand;
import io.winproxy.agent.cli.CliContext;
import io.winproxy.agent.cli.RootCommand;
import io.winproxy.agent.cli.ShutdownSignal;
import io.winproxy.agent.cli.UsageException;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.agent.config.ProxyFlags;
import io.winproxy.agent.demo.DemoException;
import io.winproxy.agent.fatal.FatalErrors;
import io.winproxy.agent.kube.KubeClientException;
import io.winproxy.agent.status.StatusCommand;
import io.winproxy.agent.winsvc.StartupFailureReporter;
import io.winproxy.dsr.DsrConfigurationException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * The jar's entry point and the only place that calls {@code System.exit}. Exit codes: 0 success; 1 runtime
 * failure (including a 32-bit Java runtime on Windows, where HNS is 64-bit only); 2 invalid flags or configuration.
 * Errors are one line on stderr naming the flag or field, never a stack trace (that goes to the debug log). The same
 * line also goes to the Windows event log when running as a service and to the log file the command line names
 * ({@link StartupFailureReporter}), because a flag or configuration error happens before logging is set up and a
 * service has no console.
 */
public final class Main {
    private static final Logger logger = LoggerFactory.getLogger(Main.class);

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    private final CliContext context;
    private final Properties system;
    private final StartupFailureReporter failures;

    public Main(CliContext context) {
        this(context, System.getProperties(), StartupFailureReporter.forThisProcess());
    }

    /**
     * @param system   the JVM's system properties ({@code os.name}, {@code os.arch}, {@code sun.arch.data.model})
     * @param failures where a failure's line goes besides standard error
     */
    public Main(CliContext context, Properties system, StartupFailureReporter failures) {
        this.context = context;
        this.system = system;
        this.failures = failures;
    }

    public static void main(String[] args) {
        FatalErrors.install();
        ShutdownSignal shutdown = new ShutdownSignal(true);
        int code = new Main(new CliContext(System.out, System.err, System.getenv(), shutdown)).run(args);
        if (!shutdown.fired()) {
            System.exit(code);
        }
    }

    /** Parses and runs one command line; returns the exit code. */
    public int run(String... args) {
        List<String> argv = List.of(args);
        Optional<String> unsupported = unsupportedRuntime(system);
        if (unsupported.isPresent()) {
            return fail(argv, unsupported.get(), EXIT_FAILURE);
        }
        CommandLine cl = ProxyFlags.prepare(commandLine(context));
        cl.setOut(new PrintWriter(context.out(), true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(context.err(), true, StandardCharsets.UTF_8));
        cl.setParameterExceptionHandler((e, ignored) -> fail(argv, e.getMessage(), EXIT_USAGE));
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> handle(argv, e));
        return cl.execute(args);
    }

    /**
     * The command tree: the proxy and the commands of {@code cli}, plus the commands that are rooms of their own
     * (their packages sit above {@code cli}, whose {@link RootCommand} they take their context from, so they are
     * registered here rather than in the root's annotation: the dependency runs one way).
     */
    static CommandLine commandLine(CliContext context) {
        return new CommandLine(new RootCommand(context)).addSubcommand(new StatusCommand())
                .addSubcommand(new CheckCommand()).addSubcommand(new CdsCommand());
    }

    /**
     * Why this JVM cannot run winproxy, if it cannot: on Windows, a 32-bit runtime ({@code sun.arch.data.model=32},
     * or {@code os.arch} x86) cannot load the 64-bit-only {@code computenetwork.dll}, and would otherwise fail later
     * with an obscure JNA error.
     */
    static Optional<String> unsupportedRuntime(Properties system) {
        String os = system.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        if (!os.startsWith("windows")) {
            return Optional.empty();
        }
        String model = system.getProperty("sun.arch.data.model", "");
        String arch = system.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        boolean is32 = model.equals("32") || arch.equals("x86") || arch.equals("i386") || arch.equals("i686");
        if (!is32) {
            return Optional.empty();
        }
        return Optional.of("this is a 32-bit Java runtime (os.arch=" + arch + "); winproxy needs a 64-bit (x64) Java "
                + "17 or later, because HNS (computenetwork.dll) is 64-bit only: install one and set JAVA_HOME, or "
                + "unpack it into the runtime folder of the distribution");
    }

    private int handle(List<String> argv, Exception e) {
        if (e instanceof ConfigException || e instanceof UsageException || e instanceof KubeClientException
                || e instanceof DsrConfigurationException) {
            return fail(argv, e.getMessage(), EXIT_USAGE);
        }
        if (e instanceof DemoException && e.getMessage() != null && e.getMessage().startsWith("--")) {
            return fail(argv, e.getMessage(), EXIT_USAGE);
        }
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
            return fail(argv, "interrupted while running the command", EXIT_FAILURE);
        }
        logger.atDebug().setMessage("Command failed").setCause(e).log();
        return fail(argv, e.getMessage() != null ? e.getMessage() : e.toString(), EXIT_FAILURE);
    }

    /** Prints the one-line error, reports it where a service's operator looks, and returns {@code code}. */
    private int fail(List<String> argv, String message, int code) {
        String line = "winproxy: " + Messages.firstLine(message, "").strip();
        context.err().println(line);
        failures.report(argv, line);
        return code;
    }
}
