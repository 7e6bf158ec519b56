package io.winproxy.installer;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code install-service.ps1 -ReplaceService NAME} changes in an existing kube-proxy service: only the program
 * in its binary path. The service keeps its name, arguments, dependencies, account, start type, description and
 * recovery actions, because the SCM keeps them: the replacement is {@code ChangeServiceConfigW} with a new binary
 * path and nothing else, and the old binary path is recorded so that {@link ServiceRegistrar#rollback} can put it
 * back.
 *
 * <p>The binary paths the launcher families register (docs/runbooks.md, "Replace a kube-proxy service"):
 * <ul>
 *   <li>kube-proxy.exe as the program ({@code sc.exe create}, WMCO before its log runner): the program becomes
 *       winproxy's kube-proxy.exe, the arguments stay;</li>
 *   <li>kube-proxy.exe as an argument of a log runner (OpenShift WMCO:
 *       {@code kube-log-runner.exe -log-file=... C:\k\kube-proxy.exe --config ... --windows-service}): that
 *       argument becomes winproxy's kube-proxy.exe, the runner stays in front (kube-proxy.exe hands the agent the
 *       runner's output);</li>
 *   <li>install-service.ps1's own {@code java.exe ... -jar winproxy-agent.jar ARGS}: becomes
 *       {@code kube-proxy.exe ARGS};</li>
 *   <li>a program that runs kube-proxy.exe itself with arguments of its own: nssm (AKS, aks-engine, Calico), a
 *       PowerShell script, or a compiled wrapper (microsoft/SDN's {@code KubeproxySvc.exe}): refused, with what to do
 *       instead (swap kube-proxy.exe where that program starts it), since the service's command line does not hold
 *       kube-proxy's arguments.</li>
 * </ul>
 * {@code -AgentArgument} flags are never combined silently with a configuration file: with {@code --config} among
 * the service's arguments they are refused (kube-proxy ignores most flags beside a config file; put the settings
 * into the file), otherwise they are appended and the plan says so.
 */
final class ServiceReplacement {
    private ServiceReplacement() {
    }

    /**
     * The new binary path and the lines to tell the operator.
     *
     * @param binaryPath the command line the service runs with now
     * @param notes      what was kept, changed or appended, one line each
     */
    record Plan(String binaryPath, List<String> notes) {
        Plan {
            notes = List.copyOf(notes);
        }
    }

    /**
     * Plans the replacement of {@code oldBinaryPath}'s kube-proxy with {@code kubeProxyExe}.
     *
     * @throws IllegalArgumentException (usage, exit code 2) when the service cannot be replaced this way, naming
     *                                  what to do instead
     */
    static Plan plan(String name, String oldBinaryPath, String kubeProxyExe, List<String> agentArguments) {
        List<String> argv = CommandLine.split(oldBinaryPath.strip());
        List<String> notes = new ArrayList<>();
        String program = fileName(argv.get(0));
        List<String> result = new ArrayList<>();
        int kubeProxy = indexOfKubeProxy(argv);
        int jar = indexOfAgentJar(argv);
        if (kubeProxy >= 0) {
            result.addAll(argv);
            result.set(kubeProxy, kubeProxyExe);
            notes.add(kubeProxy == 0 ? "program " + argv.get(0) + " -> " + kubeProxyExe
                    : "kube-proxy " + argv.get(kubeProxy) + " -> " + kubeProxyExe + " (" + argv.get(0)
                            + " stays in front, and the agent's output reaches it)");
        } else if (program.startsWith("java") && jar > 0) {
            result.add(kubeProxyExe);
            result.addAll(argv.subList(jar + 1, argv.size()));
            notes.add("program " + argv.get(0) + " ... -jar " + argv.get(jar) + " -> " + kubeProxyExe);
        } else if (program.equals("nssm.exe") || program.equals("nssm")) {
            throw new IllegalArgumentException("-ReplaceService " + name + ": the service runs nssm (" + argv.get(0)
                    + "), which starts what its Application setting names (nssm get " + name + " Application): "
                    + "swap kube-proxy.exe in the folder that program starts it from (docs/runbooks.md, the row of "
                    + "your launcher family) instead of replacing the service");
        } else if (program.startsWith("powershell") || program.startsWith("pwsh") || program.equals("cmd.exe")) {
            throw new IllegalArgumentException("-ReplaceService " + name + ": the service runs a script (" + argv.get(0)
                    + "), which starts kube-proxy.exe with arguments of its own: swap kube-proxy.exe where the script "
                    + "starts it (docs/runbooks.md, the row of your launcher family) instead of replacing the service");
        } else {
            throw new IllegalArgumentException("-ReplaceService " + name + ": the service runs " + argv.get(0)
                    + ", not kube-proxy.exe nor winproxy: a wrapper that starts kube-proxy.exe with arguments of its "
                    + "own (e.g. microsoft/SDN's KubeproxySvc.exe); swap kube-proxy.exe where it starts it instead");
        }
        if (!agentArguments.isEmpty()) {
            String config = configArgument(result);
            if (config != null) {
                throw new IllegalArgumentException("-AgentArgument " + String.join(" ", agentArguments) + ": service "
                        + name + " runs with " + config + ", and kube-proxy (and winproxy) ignore most flags beside a "
                        + "configuration file: put these settings into that file instead");
            }
            result.addAll(agentArguments);
            notes.add("appended " + String.join(" ", agentArguments) + " to the service's arguments");
        }
        if (kubeProxy <= 0 && LogDestination.warning(result).isPresent()) {
            notes.add(LogDestination.WARNING);
        }
        return new Plan(CommandLine.join(result), notes);
    }

    /** The index of the argument that names kube-proxy.exe (the program, or a runner's argument), or -1. */
    private static int indexOfKubeProxy(List<String> argv) {
        for (int i = 0; i < argv.size(); i++) {
            if (fileName(argv.get(i)).equals("kube-proxy.exe") || fileName(argv.get(i)).equals("kube-proxy")) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOfAgentJar(List<String> argv) {
        for (int i = 1; i + 1 < argv.size(); i++) {
            if (argv.get(i).equals("-jar") && fileName(argv.get(i + 1)).equals("winproxy-agent.jar")) {
                return i + 1;
            }
        }
        return -1;
    }

    /** The {@code --config} argument (with its value) among {@code argv}, or null. */
    private static String configArgument(List<String> argv) {
        for (int i = 1; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.startsWith("--config=") || a.startsWith("-config=")) {
                return a;
            }
            if ((a.equals("--config") || a.equals("-config")) && i + 1 < argv.size()) {
                return a + " " + argv.get(i + 1);
            }
        }
        return null;
    }

    private static String fileName(String path) {
        int slash = Math.max(path.lastIndexOf('\\'), path.lastIndexOf('/'));
        return path.substring(slash + 1).toLowerCase(Locale.ROOT);
    }
}
