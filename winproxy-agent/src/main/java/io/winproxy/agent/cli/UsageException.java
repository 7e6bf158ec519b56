package io.winproxy.agent.cli;

/** Invalid command-line use outside kube-proxy's flags (exit code 2); the message is one line naming the option. */
public final class UsageException extends RuntimeException {
    public UsageException(String message) {
        super(message);
    }
}
