package io.winproxy.agent.state;

/**
 * Another live process holds the state directory's instance lock. A runtime conflict, not bad input: the command
 * exits 1 with this one-line message (the same command line succeeds once the other instance is gone).
 */
public final class InstanceLockedException extends RuntimeException {
    public InstanceLockedException(String message) {
        super(message);
    }
}
