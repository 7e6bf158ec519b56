package io.winproxy.agent.cli;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns the JVM's shutdown (SIGTERM, Ctrl+C, a Windows service stop routed to {@code System.exit}) into a call of
 * the long-running command's stop action. {@link #fired()} tells {@code Main} not to call {@code System.exit} from
 * inside a shutdown, which would block for ever.
 */
public final class ShutdownSignal {
    private final boolean installHook;
    private final AtomicBoolean fired = new AtomicBoolean();

    /** @param installHook false in tests that run commands in-process (no JVM hook is registered) */
    public ShutdownSignal(boolean installHook) {
        this.installHook = installHook;
    }

    /** Runs {@code stop} when the JVM shuts down ({@code stop} must be idempotent). */
    public void onShutdown(Runnable stop) {
        if (!installHook) {
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            fired.set(true);
            stop.run();
        }, "winproxy-shutdown"));
    }

    public boolean fired() {
        return fired.get();
    }
}
