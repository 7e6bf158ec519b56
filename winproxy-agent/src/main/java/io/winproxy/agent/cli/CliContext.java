package io.winproxy.agent.cli;

import java.io.PrintStream;
import java.util.Map;

/**
 * What every command gets from {@link io.winproxy.agent.Main}: where to print, the environment, and the shutdown
 * signal (SIGTERM / Ctrl+C / service stop). Tests pass their own streams and environment.
 */
public record CliContext(PrintStream out, PrintStream err, Map<String, String> env, ShutdownSignal shutdown) {
    public CliContext {
        env = Map.copyOf(env);
    }
}
