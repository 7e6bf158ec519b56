package io.winproxy.agent;

import java.util.concurrent.ThreadFactory;

/**
 * Thread factories for the agent's background threads (listeners, monitors, followers, recorders): daemon threads,
 * so that none keeps the JVM alive on its own once {@code Main} is done, each with the name given, which thread
 * dumps and log lines show.
 */
public final class DaemonThreads {
    private DaemonThreads() {
    }

    /** Daemon threads all named {@code name}. */
    public static ThreadFactory named(String name) {
        return runnable -> {
            Thread thread = new Thread(runnable, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
