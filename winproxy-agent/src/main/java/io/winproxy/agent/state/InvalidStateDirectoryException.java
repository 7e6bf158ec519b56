package io.winproxy.agent.state;

/**
 * The state directory cannot be used: empty, not a directory, cannot be created, or not protected from
 * non-administrators. The message is one line without the flag name; the command line prefixes
 * {@code --state-dir: } and exits 2.
 */
public final class InvalidStateDirectoryException extends RuntimeException {
    public InvalidStateDirectoryException(String message) {
        super(message);
    }
}
