package io.winproxy.installer;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The installer's command line, separate from {@link Main} so that it is tested without {@code System.exit}:
 * <pre>
 * install --name NAME [--display-name TEXT] [--description TEXT] [--start-type automatic|delayed|manual]
 *         [--depends-on hns,kubelet] [--restart-delays 10,30,60] [--reset-period 900] [--replace] -- COMMAND...
 * uninstall --name NAME
 * replace --name NAME --kube-proxy PATH --record FILE [-- AGENT_ARGUMENT...]
 * rollback --name NAME --record FILE
 * </pre>
 * {@code replace} points an existing kube-proxy service at winproxy's kube-proxy.exe, keeping everything else the SCM
 * holds for it ({@link ServiceReplacement}); {@code rollback} puts the recorded binary path back.
 * Exit codes: 0 done; 1 the registration failed (the message names the Win32 call and error); 2 invalid usage.
 */
public final class InstallerCommand {
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;

    static final String USAGE = "usage: install --name NAME [--display-name TEXT] [--description TEXT] "
            + "[--start-type automatic|delayed|manual] [--depends-on A,B] [--restart-delays 10,30,60] "
            + "[--reset-period 900] [--replace] -- COMMAND... | uninstall --name NAME"
            + " | replace --name NAME --kube-proxy PATH --record FILE [-- AGENT_ARGUMENT...]"
            + " | rollback --name NAME --record FILE";

    private final Supplier<ServiceRegistrar> registrar;
    private final PrintStream out;
    private final PrintStream err;

    public InstallerCommand(Supplier<ServiceRegistrar> registrar, PrintStream out, PrintStream err) {
        this.registrar = registrar;
        this.out = out;
        this.err = err;
    }

    /** Runs one command line; returns the exit code. */
    public int run(String... args) {
        try {
            if (args.length == 0) {
                throw new IllegalArgumentException(USAGE);
            }
            List<String> rest = Arrays.asList(args).subList(1, args.length);
            return switch (args[0]) {
                case "install" -> install(rest);
                case "uninstall" -> uninstall(rest);
                case "replace" -> replace(rest);
                case "rollback" -> rollback(rest);
                default -> throw new IllegalArgumentException("unknown command \"" + args[0] + "\"; " + USAGE);
            };
        } catch (IllegalArgumentException e) {
            err.println("winproxy-installer: " + e.getMessage());
            return EXIT_USAGE;
        } catch (RegistrationException e) {
            err.println("winproxy-installer: " + e.getMessage());
            return EXIT_FAILURE;
        } catch (LinkageError e) {
            // advapi32.dll cannot be loaded: not Windows.
            err.println("winproxy-installer: the Windows service API is not available here ("
                    + firstLine(e.getMessage()) + ")");
            return EXIT_FAILURE;
        }
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        String line = message.lines().findFirst().orElse("").strip();
        return line.endsWith(":") ? line.substring(0, line.length() - 1) : line;
    }

    private int install(List<String> args) {
        int separator = args.indexOf("--");
        if (separator < 0 || separator == args.size() - 1) {
            throw new IllegalArgumentException("the service command line is missing: give it after --");
        }
        Options options = Options.parse(args.subList(0, separator), true);
        List<String> command = args.subList(separator + 1, args.size());
        String commandLine = CommandLine.join(command);
        ServiceDefinition definition = new ServiceDefinition(options.name, options.displayName, options.description,
                commandLine, options.startType, options.dependsOn, new RecoveryActions(options.restartDelays,
                options.resetPeriod, true));
        registrar.get().install(definition, options.replace);
        out.println("registered service " + definition.name() + " (" + definition.startType() + "): "
                + commandLine);
        LogDestination.warning(command).ifPresent(err::println);
        return EXIT_OK;
    }

    private int replace(List<String> args) {
        int separator = args.indexOf("--");
        List<String> options = separator < 0 ? args : args.subList(0, separator);
        List<String> agentArguments = separator < 0 ? List.of() : args.subList(separator + 1, args.size());
        Map<String, String> values = values(options, List.of("--name", "--kube-proxy", "--record"));
        ServiceReplacement.Plan plan = registrar.get().replace(values.get("--name"), values.get("--kube-proxy"),
                agentArguments, Path.of(values.get("--record")));
        out.println("replaced service " + values.get("--name") + ": " + plan.binaryPath());
        plan.notes().forEach(note -> out.println("  " + note));
        return EXIT_OK;
    }

    private int rollback(List<String> args) {
        Map<String, String> values = values(args, List.of("--name", "--record"));
        String restored = registrar.get().rollback(values.get("--name"), Path.of(values.get("--record")));
        out.println("rolled back service " + values.get("--name") + ": " + restored);
        return EXIT_OK;
    }

    /** Exactly the given options, each with a value. */
    private static Map<String, String> values(List<String> args, List<String> required) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.size(); i += 2) {
            String option = args.get(i);
            if (!required.contains(option)) {
                throw new IllegalArgumentException("unknown option " + option + "; " + USAGE);
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException(option + " needs a value");
            }
            values.put(option, args.get(i + 1));
        }
        for (String option : required) {
            if (!values.containsKey(option)) {
                throw new IllegalArgumentException(option + " is required");
            }
        }
        return values;
    }

    private int uninstall(List<String> args) {
        Options options = Options.parse(args, false);
        if (registrar.get().uninstall(options.name)) {
            out.println("removed service " + options.name);
        } else {
            out.println("no service named " + options.name + " is installed");
        }
        return EXIT_OK;
    }

    /** The options of one command; unknown or repeated-by-mistake options are usage errors. */
    private static final class Options {
        String name;
        String displayName = "winproxy (Kubernetes kube-proxy for Windows)";
        String description = "winproxy: programs HNS load balancers for Kubernetes Services on this node "
                + "(drop-in replacement for kube-proxy kernelspace mode).";
        StartType startType = StartType.AUTOMATIC;
        List<String> dependsOn = List.of("hns");
        List<Duration> restartDelays = RecoveryActions.DEFAULTS.restartDelays();
        Duration resetPeriod = RecoveryActions.DEFAULTS.resetPeriod();
        boolean replace;

        static Options parse(List<String> args, boolean install) {
            Options o = new Options();
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--replace") && install) {
                    o.replace = true;
                    continue;
                }
                if (!arg.equals("--name") && !install) {
                    throw new IllegalArgumentException("unknown option " + arg + " for uninstall");
                }
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(arg + " needs a value");
                }
                String value = args.get(++i);
                switch (arg) {
                    case "--name" -> o.name = value;
                    case "--display-name" -> o.displayName = value;
                    case "--description" -> o.description = value;
                    case "--start-type" -> o.startType = StartType.parse(value);
                    case "--depends-on" -> o.dependsOn = list(value);
                    case "--restart-delays" -> o.restartDelays = list(value).stream()
                            .map(v -> Duration.ofSeconds(seconds("--restart-delays", v))).toList();
                    case "--reset-period" -> o.resetPeriod = Duration.ofSeconds(seconds("--reset-period", value));
                    default -> throw new IllegalArgumentException("unknown option " + arg);
                }
            }
            if (o.name == null) {
                throw new IllegalArgumentException("--name is required");
            }
            return o;
        }

        private static List<String> list(String value) {
            List<String> items = new ArrayList<>();
            for (String item : value.split(",")) {
                if (!item.isBlank()) {
                    items.add(item.strip());
                }
            }
            return items;
        }

        private static long seconds(String flag, String value) {
            try {
                long seconds = Long.parseLong(value.strip());
                if (seconds < 0) {
                    throw new NumberFormatException();
                }
                return seconds;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + ": \"" + value + "\" is not a number of seconds");
            }
        }
    }
}
