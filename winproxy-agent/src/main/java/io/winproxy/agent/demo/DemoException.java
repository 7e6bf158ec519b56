package io.winproxy.agent.demo;

/** The demo cluster cannot start or read its inputs; the message is one line naming the file, port or setting. */
public final class DemoException extends RuntimeException {
    public DemoException(String message) {
        super(message);
    }

    public DemoException(String message, Throwable cause) {
        super(message, cause);
    }
}
