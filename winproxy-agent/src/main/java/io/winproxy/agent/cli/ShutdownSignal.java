package io.winproxy.agent.cli;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Turns the JVM's shutdown (SIGTERM, Ctrl+C, a Windows service stop) into the stop actions of the long-running
 * command. {@link #fired()} tells {@code Main} not to call {@code System.exit} from inside a shutdown, which would
 * block for ever. Tests fire it themselves with {@link #fire()}.
 */
public final class ShutdownSignal {
    private final List<Runnable> actions = new CopyOnWriteArrayList<>();
    private final AtomicBoolean fired = new AtomicBoolean();

    /** @param installHook false in tests that run commands in-process (no JVM hook is registered) */
    public ShutdownSignal(boolean installHook) {
        if (installHook) {
            Runtime.getRuntime().addShutdownHook(new Thread(this::fire, "winproxy-shutdown"));
        }
    }

    /** Runs {@code stop} on shutdown (at once if the shutdown already happened); {@code stop} must be idempotent. */
    public void onShutdown(Runnable stop) {
        actions.add(stop);
        if (fired.get()) {
            stop.run();
        }
    }

    /** Runs every registered stop action once. */
    public void fire() {
        if (fired.compareAndSet(false, true)) {
            actions.forEach(Runnable::run);
        }
    }

    public boolean fired() {
        return fired.get();
    }
}
