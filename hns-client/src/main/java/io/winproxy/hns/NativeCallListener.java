package io.winproxy.hns;

/**
 * Told of every native HCN call an {@link HnsClient} makes, by the name of the {@code computenetwork.dll} export
 * ({@code HcnEnumerateEndpoints}, {@code HcnOpenLoadBalancer}, {@code HcnCloseNetwork}, ...), failed calls included.
 * The real binding and the emulator report the same names for the same call sequences, so call counts measured on
 * the emulator hold on a node. Implementations must be thread-safe and cheap: they run on the calling thread.
 */
@FunctionalInterface
public interface NativeCallListener {
    /** The listener that ignores every call. */
    NativeCallListener NONE = function -> {
    };

    void nativeCall(String function);
}
