package io.winproxy.installer;

import java.util.List;

/** Builds a Windows command line that {@code CommandLineToArgvW} (and the JVM's launcher) splits back as given. */
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
