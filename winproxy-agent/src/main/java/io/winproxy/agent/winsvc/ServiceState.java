package io.winproxy.agent.winsvc;

/** The service states this host reports to the SCM, with their Win32 {@code SERVICE_*} values (winsvc.h). */
public enum ServiceState {
    STOPPED(0x1),
    START_PENDING(0x2),
    STOP_PENDING(0x3),
    RUNNING(0x4);

    private final int win32;

    ServiceState(int win32) {
        this.win32 = win32;
    }

    /** The {@code dwCurrentState} value of {@code SERVICE_STATUS}. */
    public int win32() {
        return win32;
    }

    /** Whether the SCM expects the checkpoint to advance while the service is in this state. */
    public boolean isPending() {
        return this == START_PENDING || this == STOP_PENDING;
    }
}
