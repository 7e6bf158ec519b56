package io.winproxy.hns.windows;

import com.sun.jna.Pointer;
import java.util.Locale;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An open HCN handle ({@code HCN_NETWORK}, {@code HCN_ENDPOINT}, {@code HCN_LOADBALANCER}) that closes itself with
 * its matching {@code HcnCloseXxx} exactly once. Use it in try-with-resources. Not thread-safe: one owner at a time.
 */
public final class HcnHandle implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(HcnHandle.class);

    private final String closeOperation;
    private final Pointer pointer;
    private final ToIntFunction<Pointer> closer;
    private boolean closed;

    HcnHandle(String closeOperation, Pointer pointer, ToIntFunction<Pointer> closer) {
        this.closeOperation = closeOperation;
        this.pointer = pointer;
        this.closer = closer;
    }

    /** The raw handle, for the tier-1 calls; only valid until {@link #close()}. */
    Pointer pointer() {
        if (closed) {
            throw new IllegalStateException("handle already closed by " + closeOperation);
        }
        return pointer;
    }

    /**
     * Closes the handle; later calls do nothing. A failing close is logged, not thrown: the handle is unusable
     * either way and the caller's own outcome matters more.
     */
    @Override
    public void close() {
        int hresult = release();
        if (hresult < 0) {
            logger.atWarn().setMessage("Closing an HNS handle failed").addKeyValue("operation", closeOperation)
                    .addKeyValue("hresult", "0x" + String.format(Locale.ROOT, "%08X", hresult)).log();
        }
    }

    /**
     * Closes the handle as {@link #close()} does, but returns the close's HRESULT instead of logging a failure
     * ({@code S_OK} when the handle was already closed), for owners that report it themselves.
     */
    int release() {
        if (closed) {
            return 0;
        }
        closed = true;
        return closer.applyAsInt(pointer);
    }

    /** The name of the export that closes this handle, e.g. {@code HcnCloseNetwork}. */
    String closeOperation() {
        return closeOperation;
    }
}
