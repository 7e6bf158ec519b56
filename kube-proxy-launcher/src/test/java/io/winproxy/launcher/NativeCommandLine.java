package io.winproxy.launcher;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.LongByReference;
import java.util.ArrayList;
import java.util.List;

/**
 * The launcher's argument handling (src/main/c/cmdline.c), built with the host gcc into
 * {@code target/native/libkubeproxycmdline.so} and called through JNA. Strings cross as UTF-16 code units
 * ({@code short[]}, as {@code wchar_t} is on Windows). Each call is made twice, first to ask for the size, so that the
 * snprintf-style contract of cmdline.h is exercised, and the output is checked to be NUL-terminated.
 */
final class NativeCommandLine {
    interface CmdLine extends Library {
        long cmdline_args_offset(short[] line, long length);

        long cmdline_split(short[] args, long length, short[] out, long capacity, LongByReference count);

        long cmdline_quote(short[] arg, long length, short[] out, long capacity);

        long cmdline_forward(short[] line, long length, short[] out, long capacity);

        int cmdline_bool_flag(short[] line, long length, short[] name, long nameLength);
    }

    // cmdline_bool_flag's results
    static final int FLAG_ABSENT = 0;
    static final int FLAG_TRUE = 1;
    static final int FLAG_FALSE = 2;
    static final int FLAG_INVALID = 3;

    private static final CmdLine LIBRARY = Native.load("kubeproxycmdline", CmdLine.class);

    private NativeCommandLine() {
    }

    /** The arguments part of a full command line, as kube-proxy.exe finds it after its own name. */
    static String arguments(String line) {
        return line.substring((int) LIBRARY.cmdline_args_offset(units(line), line.length()));
    }

    static List<String> split(String args) {
        short[] in = units(args);
        LongByReference count = new LongByReference();
        long needed = LIBRARY.cmdline_split(in, in.length, null, 0, count);
        short[] out = new short[(int) needed];
        if (LIBRARY.cmdline_split(in, in.length, out, out.length, count) != needed) {
            throw new AssertionError("cmdline_split gave two sizes for one input");
        }
        List<String> result = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (short unit : out) {
            if (unit == 0) {
                result.add(current.toString());
                current.setLength(0);
            } else {
                current.append((char) unit);
            }
        }
        if (result.size() != count.getValue()) {
            throw new AssertionError("cmdline_split counted " + count.getValue() + " arguments and wrote "
                    + result.size());
        }
        return result;
    }

    static String quote(String arg) {
        short[] in = units(arg);
        return string(LIBRARY.cmdline_quote(in, in.length, null, 0),
                out -> LIBRARY.cmdline_quote(in, in.length, out, out.length));
    }

    /** The argument text kube-proxy.exe puts after {@code -jar winproxy-agent.jar} for its own command line. */
    static String forward(String line) {
        short[] in = units(line);
        return string(LIBRARY.cmdline_forward(in, in.length, null, 0),
                out -> LIBRARY.cmdline_forward(in, in.length, out, out.length));
    }

    /** How the agent reads the boolean flag {@code name} in a full command line (one of the FLAG_ values). */
    static int boolFlag(String line, String name) {
        return LIBRARY.cmdline_bool_flag(units(line), line.length(), units(name), name.length());
    }

    private interface Call {
        long into(short[] out);
    }

    private static String string(long needed, Call call) {
        short[] tooSmall = new short[(int) needed];
        if (call.into(tooSmall) != needed) {
            throw new AssertionError("the size changed when the buffer was too small");
        }
        short[] out = new short[(int) needed + 1];
        if (call.into(out) != needed || out[(int) needed] != 0) {
            throw new AssertionError("the output is not " + needed + " units and a NUL");
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < needed; i++) {
            text.append((char) out[i]);
        }
        return text.toString();
    }

    private static short[] units(String text) {
        short[] units = new short[text.length()];
        for (int i = 0; i < units.length; i++) {
            units[i] = (short) text.charAt(i);
        }
        return units;
    }
}
