package io.winproxy.installer;

import java.util.ArrayList;
import java.util.List;

/**
 * Builds a Windows command line that {@code CommandLineToArgvW} (and the JVM's launcher) splits back as given, and
 * splits one (a service's binary path) by the same rules.
 */
public final class CommandLine {

    private CommandLine() {
    }

    /** Joins the arguments, quoting those with blanks or quotes and escaping backslashes before quotes. */
    public static String join(List<String> arguments) {
        StringBuilder line = new StringBuilder();
        for (String argument : arguments) {
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(quote(argument));
        }
        return line.toString();
    }

    /**
     * Splits {@code line} as {@code CommandLineToArgvW} does: the program name ends at the first blank outside quotes
     * and takes no escapes; in the arguments, 2n backslashes before a quote give n and open or close quoting, 2n+1
     * give n and a literal quote, other backslashes are literal, and {@code ""} inside quotes is a literal quote.
     */
    public static List<String> split(String line) {
        List<String> arguments = new ArrayList<>();
        int i = 0;
        int n = line.length();
        StringBuilder program = new StringBuilder();
        boolean quoted = false;
        for (; i < n; i++) {
            char c = line.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && (c == ' ' || c == '\t')) {
                break;
            } else {
                program.append(c);
            }
        }
        arguments.add(program.toString());
        while (true) {
            while (i < n && (line.charAt(i) == ' ' || line.charAt(i) == '\t')) {
                i++;
            }
            if (i >= n) {
                return arguments;
            }
            StringBuilder argument = new StringBuilder();
            quoted = false;
            for (; i < n; i++) {
                char c = line.charAt(i);
                if (c == '\\') {
                    int backslashes = 0;
                    while (i < n && line.charAt(i) == '\\') {
                        backslashes++;
                        i++;
                    }
                    if (i < n && line.charAt(i) == '"') {
                        argument.append("\\".repeat(backslashes / 2));
                        if (backslashes % 2 == 1) {
                            argument.append('"');
                            continue;
                        }
                        i--; // the quote is read again below
                    } else {
                        argument.append("\\".repeat(backslashes));
                        i--;
                    }
                    continue;
                }
                if (c == '"') {
                    if (quoted && i + 1 < n && line.charAt(i + 1) == '"') {
                        argument.append('"');
                        i++;
                    } else {
                        quoted = !quoted;
                    }
                    continue;
                }
                if (!quoted && (c == ' ' || c == '\t')) {
                    break;
                }
                argument.append(c);
            }
            arguments.add(argument.toString());
        }
    }

    static String quote(String argument) {
        if (!argument.isEmpty() && argument.chars().noneMatch(c -> c == ' ' || c == '\t' || c == '"')) {
            return argument;
        }
        StringBuilder quoted = new StringBuilder("\"");
        int backslashes = 0;
        for (int i = 0; i < argument.length(); i++) {
            char c = argument.charAt(i);
            if (c == '\\') {
                backslashes++;
                continue;
            }
            if (c == '"') {
                // Backslashes before a quote are doubled, and the quote itself is escaped.
                quoted.append("\\".repeat(backslashes * 2 + 1)).append('"');
            } else {
                quoted.append("\\".repeat(backslashes)).append(c);
            }
            backslashes = 0;
        }
        // Backslashes before the closing quote are doubled so that they do not escape it.
        quoted.append("\\".repeat(backslashes * 2)).append('"');
        return quoted.toString();
    }
}
