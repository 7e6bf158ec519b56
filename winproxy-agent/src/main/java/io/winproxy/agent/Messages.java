package io.winproxy.agent;

/** Shaping messages of exceptions for winproxy's one-line errors and log lines. */
public final class Messages {
    private Messages() {
    }

    /** The first line of {@code message} (up to the first newline), or {@code ifNone} when it is null. */
    public static String firstLine(String message, String ifNone) {
        if (message == null) {
            return ifNone;
        }
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
