package io.winproxy.hns.windows;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.NativeCallListener;

/**
 * What the tier-2 bindings ({@link HcnCalls}, {@link VmComputeCalls}) share: the JSON mapper, the reader and freer
 * of returned strings ({@link NativeResults}) and the {@link NativeCallReporter} that tells the listener of each
 * export invocation. Thread-safe; the listener may be replaced at any time.
 */
abstract class NativeBinding {
    final ObjectMapper mapper;
    final NativeResults results;
    final NativeCallReporter reporter = new NativeCallReporter();

    NativeBinding(CoTaskMemFree coTaskMemFree, ObjectMapper mapper) {
        this.mapper = mapper;
        this.results = new NativeResults(coTaskMemFree, mapper);
    }

    /** Reports every export invocation from now on to {@code listener} ({@code null} or NONE: to nobody). */
    public void setNativeCallListener(NativeCallListener listener) {
        reporter.setListener(listener);
    }
}
