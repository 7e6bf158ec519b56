package io.winproxy.hns.windows;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.WString;

/**
 * The test-only exports of the gcc-built stand-in ({@code src/test/c}, {@code target/native/libcomputenetwork.so}):
 * counters, captured inputs and failure injection. {@code function} arguments are export names.
 */
interface StandInLibrary extends Library {

    void CoTaskMemFree(Pointer memory);

    void standin_reset();

    int standin_fail_next(String function, int hresult, WString record);

    void standin_set_version(int major, int minor);

    void standin_vanish_after_next_enumerate(int index);

    int standin_call_count(String function);

    Pointer standin_last_text(String function);

    int standin_last_guid(String function, byte[] out);

    /** The exports called since the reset or the last clear, comma-separated in call order; null on overflow. */
    Pointer standin_call_log();

    void standin_clear_call_log();

    int standin_release_open_handles();

    int standin_strings_allocated();

    int standin_strings_freed();

    int standin_bad_frees();

    int standin_handles_opened();

    int standin_handles_closed();

    int standin_bad_closes();
}
