package io.winproxy.installer;

/** A failed registration step, with a one-line message and, when it came from Win32, the error code. */
public class RegistrationException extends RuntimeException {
    /** {@code ERROR_ACCESS_DENIED}. */
    public static final int ACCESS_DENIED = 5;
    /** {@code ERROR_SERVICE_DOES_NOT_EXIST}. */
    public static final int SERVICE_DOES_NOT_EXIST = 1060;
    /** {@code ERROR_SERVICE_MARKED_FOR_DELETE}: deleted, but a handle to it is still open somewhere. */
    public static final int SERVICE_MARKED_FOR_DELETE = 1072;

    private final int win32Error;

    public RegistrationException(String message, int win32Error) {
        super(message);
        this.win32Error = win32Error;
    }

    public RegistrationException(String message) {
        this(message, 0);
    }

    /** The {@code GetLastError()} value, 0 when the failure is not a Win32 error. */
    public int win32Error() {
        return win32Error;
    }
}
