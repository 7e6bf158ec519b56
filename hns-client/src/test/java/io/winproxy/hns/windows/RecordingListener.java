package io.winproxy.hns.windows;

import io.winproxy.hns.NativeCallListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A {@link NativeCallListener} that keeps the export names it is told of, in order. Thread-safe. */
final class RecordingListener implements NativeCallListener {
    private final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void nativeCall(String function) {
        calls.add(function);
    }

    /** Every call reported since creation or the last {@link #clear()}. */
    List<String> calls() {
        return List.copyOf(calls);
    }

    void clear() {
        calls.clear();
    }
}
