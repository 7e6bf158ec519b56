package io.winproxy.agent.winsvc;

import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The proxy as the Windows service host sees it. The composition root (Main) adapts its agent to this interface and
 * hands it to {@link WindowsServiceHost#run(String, ServiceAgent)}.
 */
public interface ServiceAgent {

    /**
     * Runs the proxy on the calling thread (a thread the host creates) until it stops.
     *
     * @param ready call once the proxy is serving (for example after the informers have synced and the first sync
     *              finished); the host then reports {@code RUNNING}. Calling it more than once is harmless. If it
     *              is never called, the host reports {@code RUNNING} after {@link ServiceTimings#readyTimeout()}.
     * @return the exit code: 0 after a requested stop, non-zero on failure. A non-zero code (or an exception, which
     *         counts as code 1) is reported to the SCM as a service-specific error, which fires its recovery actions.
     */
    int run(Runnable ready) throws Exception;

    /**
     * Asks {@link #run} to stop gracefully and return. Called at most once, on a thread of its own (never the SCM's
     * control thread), so closing the agent here is fine. The HNS dataplane must be left in place (the next start
     * adopts it). It may come while {@link #run} is still starting, before ready was called, or even before
     * {@link #run} was entered: {@link #run} must then return promptly once what it has started is closed.
     */
    void requestStop();

    /**
     * The usual adapter: {@code start} builds and starts the proxy and returns once it is serving; the service is
     * then ready, and a stop request closes what {@code start} returned. {@link #run} returns 0 after that close,
     * and fails (code 1) when {@code start} or the close throws.
     */
    static ServiceAgent untilStopped(Callable<? extends AutoCloseable> start) {
        Objects.requireNonNull(start, "start");
        CountDownLatch stop = new CountDownLatch(1);
        return new ServiceAgent() {
            @Override
            public int run(Runnable ready) throws Exception {
                try (AutoCloseable running = start.call()) {
                    ready.run();
                    stop.await();
                }
                return 0;
            }

            @Override
            public void requestStop() {
                stop.countDown();
            }
        };
    }
}
