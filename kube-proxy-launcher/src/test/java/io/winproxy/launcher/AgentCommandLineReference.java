package io.winproxy.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * A copy of winproxy-agent's test reference {@code io.winproxy.agent.config.WindowsCommandLine} (this module must not
 * depend on the agent's test classes): the splitting rules under which the agent's LauncherCommandLinesTest proves
 * every launcher's command line resolves with kube-proxy's meaning. Unlike CommandLineToArgvW it has no rule for two
 * double quotes inside quotes; the launcher's output never contains that sequence, so both agree on it.
 *
 * <p>Splits a Windows command line into arguments the way the C runtime (and Go's and Java's launchers) do
 * ({@code CommandLineToArgvW} rules): blanks separate arguments outside double quotes; a double quote toggles
 * quoting and is dropped; {@code 2n} backslashes before a quote give {@code n} backslashes and a quote that toggles,
 * {@code 2n+1} give {@code n} backslashes and a literal quote; other backslashes are literal. Test helper, so that
 * launcher command lines can be written verbatim, quotes included.
 */
final class AgentCommandLineReference {
    private AgentCommandLineReference() {
    }

    static String[] split(String commandLine) {
        List<String> args = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inArgument = false;
        boolean quoted = false;
        int i = 0;
        while (i < commandLine.length()) {
            char c = commandLine.charAt(i);
            if (c == '\\') {
                int start = i;
                while (i < commandLine.length() && commandLine.charAt(i) == '\\') {
                    i++;
                }
                int count = i - start;
                if (i < commandLine.length() && commandLine.charAt(i) == '"') {
                    current.append("\\".repeat(count / 2));
                    if (count % 2 == 1) {
                        current.append('"');
                        i++;
                    }
                } else {
                    current.append("\\".repeat(count));
                }
                inArgument = true;
                continue;
            }
            if (c == '"') {
                quoted = !quoted;
                inArgument = true;
            } else if ((c == ' ' || c == '\t') && !quoted) {
                if (inArgument) {
                    args.add(current.toString());
                    current.setLength(0);
                    inArgument = false;
                }
            } else {
                current.append(c);
                inArgument = true;
            }
            i++;
        }
        if (inArgument) {
            args.add(current.toString());
        }
        return args.toArray(String[]::new);
    }
}
