package io.winproxy.hns.windows;

import io.winproxy.hns.NativeCallListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the current {@link NativeCallListener} of each export invocation, shared by {@link HcnCalls} and
 * {@link VmComputeCalls}. The listener is held in a volatile field, so it can be replaced from any thread while calls
 * are made. A listener that throws does not disturb the native call: the exception is logged and the call proceeds
 * (a close in a {@code finally} must still happen).
 */
final class NativeCallReporter {
    private static final Logger logger = LoggerFactory.getLogger(NativeCallReporter.class);

    private volatile NativeCallListener listener = NativeCallListener.NONE;

    void setListener(NativeCallListener newListener) {
        listener = newListener == null ? NativeCallListener.NONE : newListener;
    }

    /** Reports one invocation of {@code function} (an export name such as {@code HcnOpenLoadBalancer}). */
    void report(String function) {
        NativeCallListener current = listener;
        if (current == NativeCallListener.NONE) {
            return;
        }
        try {
            current.nativeCall(function);
        } catch (RuntimeException e) {
            logger.atWarn().setMessage("Native call listener failed; the call proceeds")
                    .addKeyValue("function", function).setCause(e).log();
        }
    }
}
