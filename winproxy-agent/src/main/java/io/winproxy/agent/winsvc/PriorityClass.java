package io.winproxy.agent.winsvc;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The process priority classes {@code --windows-priorityclass} accepts, spelled as kube-proxy and kubelet accept
 * them (the Win32 constant names), with their {@code SetPriorityClass} values.
 */
public enum PriorityClass {
    IDLE_PRIORITY_CLASS(0x40),
    BELOW_NORMAL_PRIORITY_CLASS(0x4000),
    NORMAL_PRIORITY_CLASS(0x20),
    ABOVE_NORMAL_PRIORITY_CLASS(0x8000),
    HIGH_PRIORITY_CLASS(0x80),
    REALTIME_PRIORITY_CLASS(0x100);

    /** The default of {@code --windows-priorityclass}. */
    public static final PriorityClass DEFAULT = NORMAL_PRIORITY_CLASS;

    private final int win32;

    PriorityClass(int win32) {
        this.win32 = win32;
    }

    public int win32() {
        return win32;
    }

    /**
     * Parses a {@code --windows-priorityclass} value: a constant name such as {@code ABOVE_NORMAL_PRIORITY_CLASS}
     * (case-insensitive, surrounding blanks ignored).
     *
     * @throws IllegalArgumentException with a one-line message naming the flag and the accepted values
     */
    public static PriorityClass parse(String value) {
        String name = value == null ? "" : value.strip();
        for (PriorityClass candidate : values()) {
            if (candidate.name().equalsIgnoreCase(name)) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("invalid --windows-priorityclass \"" + value + "\": expected one of "
                + Arrays.stream(values()).map(Enum::name).collect(Collectors.joining(", ")));
    }

    /** The class whose Win32 value is {@code win32}, as returned by {@code GetPriorityClass}. */
    public static PriorityClass fromWin32(int win32) {
        for (PriorityClass candidate : values()) {
            if (candidate.win32 == win32) {
                return candidate;
            }
        }
        throw new IllegalArgumentException("unknown Win32 priority class 0x" + Integer.toHexString(win32));
    }
}
