package io.winproxy.dsr;

/** An invalid DSR request; the message is one line naming the flag, the gate or the HNS version. */
public class DsrConfigurationException extends RuntimeException {
    public DsrConfigurationException(String message) {
        super(message);
    }
}
