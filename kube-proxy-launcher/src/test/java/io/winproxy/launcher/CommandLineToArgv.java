package io.winproxy.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * An independent model of how a Windows program that is not the launcher splits its command line: the rules of
 * {@code CommandLineToArgvW} and of Go's {@code os.Args} (what kube-proxy.exe, a Go program, received). Written after
 * Go's documented algorithm (count backslashes, then decide at the quote), not after cmdline.c, so that the two can
 * be compared. The one rule beyond {@link AgentCommandLineReference}: inside quotes, two double quotes give one
 * literal quote and end the quoting.
 */
final class CommandLineToArgv {
    private CommandLineToArgv() {
    }

    /** The arguments after the program name of a full command line. */
    static List<String> arguments(String line) {
        int i;
        if (line.startsWith("\"")) {
            int close = line.indexOf('"', 1);
            i = close < 0 ? line.length() : close + 1;
        } else {
            i = 0;
            while (i < line.length() && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
                i++;
            }
        }
        return split(line.substring(i));
    }

    /** Arguments only (no program name). */
    static List<String> split(String args) {
        List<String> result = new ArrayList<>();
        String rest = args;
        while (!rest.isEmpty()) {
            if (rest.charAt(0) == ' ' || rest.charAt(0) == '\t') {
                rest = rest.substring(1);
                continue;
            }
            StringBuilder arg = new StringBuilder();
            boolean inQuote = false;
            int slashes = 0;
            int i = 0;
            boolean ended = false;
            for (; i < rest.length() && !ended; i++) {
                char c = rest.charAt(i);
                if (c == '\\') {
                    slashes++;
                    continue;
                }
                if (c == '"') {
                    arg.append("\\".repeat(slashes / 2));
                    if (slashes % 2 == 0) {
                        if (inQuote && i + 1 < rest.length() && rest.charAt(i + 1) == '"') {
                            arg.append('"');
                            i++;
                        }
                        inQuote = !inQuote;
                    } else {
                        arg.append('"');
                    }
                    slashes = 0;
                    continue;
                }
                if ((c == ' ' || c == '\t') && !inQuote) {
                    ended = true;
                    i--; // the separator is skipped by the outer loop
                    continue;
                }
                arg.append("\\".repeat(slashes));
                slashes = 0;
                arg.append(c);
            }
            arg.append("\\".repeat(slashes));
            result.add(arg.toString());
            rest = rest.substring(i);
        }
        return result;
    }
}
