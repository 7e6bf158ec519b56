package io.winproxy.agent.health;

/**
 * A listener could not bind its address and {@code bindAddressHardFail} is set: the caller (Main) exits with code 1
 * and prints {@link #getMessage()}, a one-line message such as
 * {@code failed to start proxy healthz on 0.0.0.0:10256: Address already in use}.
 */
public final class BindFailedException extends RuntimeException {
    public BindFailedException(String message, Throwable cause) {
        super(message, cause);
    }
}
