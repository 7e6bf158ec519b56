package io.winproxy.agent.winsvc;

import io.winproxy.agent.logging.KlogFileNames;
import io.winproxy.agent.logging.KlogTextLayout;
import io.winproxy.agent.logging.KlogValues;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Makes the one-line error of a failed start visible where a service's operator looks. A Windows service has no
 * console and the SCM discards standard error, and a flag or configuration error happens before logging is set up,
 * so {@code Main} hands such lines here as well as to standard error:
 * <ul>
 *   <li>on Windows, when the process runs as a service (the command line has {@code --windows-service}, or the
 *       process has no console, which covers {@code windowsRunAsService: true} in a configuration file that could
 *       not be read), to the Application event log, source {@value #EVENT_SOURCE}, event ID {@value #EVENT_ID}
 *       (the source is registered first when it is not and the process may, as {@code install-service.ps1}
 *       registers it; unregistered, Windows shows the message after a "description cannot be found"
 *       preamble);</li>
 *   <li>on every platform, appended to the log file the command line names, as klog chooses it:
 *       {@code --log-file}, else {@code <--log-dir>/kube-proxy.log}, only with {@code --logtostderr=false}.</li>
 * </ul>
 * Both are best effort: a failure to report is ignored (the line is on standard error anyway). The command line is
 * scanned, not parsed, because parsing is what failed.
 */
public final class StartupFailureReporter {
    /** The event source in the Application log. */
    public static final String EVENT_SOURCE = EventSource.NAME;
    /** The event ID of a failed start. */
    public static final int EVENT_ID = 1000;


    private final boolean windows;
    private final Supplier<EventLogApi> eventLog;
    private final Clock clock;

    /**
     * @param windows  whether this is Windows (no Event Log elsewhere)
     * @param eventLog created only when needed, so that the native library is loaded only on Windows
     */
    public StartupFailureReporter(boolean windows, Supplier<EventLogApi> eventLog, Clock clock) {
        this.windows = windows;
        this.eventLog = eventLog;
        this.clock = clock;
    }

    /** The reporter for this process. */
    public static StartupFailureReporter forThisProcess() {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        return new StartupFailureReporter(windows, JnaEventLogApi::new, Clock.systemUTC());
    }

    /** Reports {@code line} (already one line, e.g. {@code winproxy: --config: ...}) for the command line {@code args}. */
    public void report(List<String> args, String line) {
        if (windows) {
            reportToEventLog(args, line);
        }
        logFile(args).ifPresent(file -> append(file, line));
    }

    private void reportToEventLog(List<String> args, String line) {
        try {
            EventLogApi api = eventLog.get();
            if (asService(args) || !api.hasConsole()) {
                EventSource.registerQuietly(api);
                api.report(EVENT_SOURCE, EventLogApi.ERROR_TYPE, EVENT_ID, line);
            }
        } catch (RuntimeException | LinkageError e) {
            // Best effort: the line is on standard error already.
        }
    }

    private void append(Path file, String line) {
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND)) {
                // klog's structured line, as the running agent writes it: header and quoted message.
                w.write(KlogTextLayout.header('E', clock.instant().atZone(clock.getZone()),
                        ProcessHandle.current().pid(), "Main.java:0") + KlogValues.quote(line)
                        + System.lineSeparator());
            }
        } catch (IOException | RuntimeException e) {
            // Best effort, as above.
        }
    }

    /** Whether the command line asks to run as a service: {@code --windows-service} without a false value. */
    static boolean asService(List<String> args) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                return false;
            }
            if (a.equals("--windows-service")) {
                return i + 1 >= args.size() || !args.get(i + 1).equalsIgnoreCase("false");
            }
            if (a.startsWith("--windows-service=")) {
                return !a.substring("--windows-service=".length()).equalsIgnoreCase("false");
            }
        }
        return false;
    }

    /** The log file klog would write for {@code args}, if any. */
    Optional<Path> logFile(List<String> args) {
        Optional<String> toStderr = value(args, "--logtostderr", "true");
        if (toStderr.isEmpty() || !toStderr.get().equalsIgnoreCase("false")) {
            return Optional.empty();
        }
        Optional<String> file = value(args, "--log-file", null).filter(v -> !v.isEmpty());
        if (file.isPresent()) {
            return file.map(Path::of);
        }
        // In --log-dir, the ERROR file klog would start now (klog's names, as the running agent writes them).
        return value(args, "--log-dir", null).filter(v -> !v.isEmpty()).map(d -> Path.of(d,
                KlogFileNames.forThisProcess().fileName("ERROR", clock.instant().atZone(clock.getZone()))));
    }

    /**
     * The last value of {@code flag} ({@code --flag=v} or {@code --flag v}; {@code -flag} too, as Go's flag
     * package takes it), {@code bare} for a boolean flag given alone, empty when absent.
     */
    private static Optional<String> value(List<String> args, String flag, String bare) {
        Optional<String> found = Optional.empty();
        String single = flag.substring(1);
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                break;
            }
            for (String name : List.of(flag, single)) {
                if (a.startsWith(name + "=")) {
                    found = Optional.of(a.substring(name.length() + 1));
                } else if (a.equals(name)) {
                    if (bare != null) {
                        found = Optional.of(bare);
                    } else if (i + 1 < args.size()) {
                        found = Optional.of(args.get(i + 1));
                    }
                }
            }
        }
        return found;
    }
}
