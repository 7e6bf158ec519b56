package io.winproxy.agent.winsvc;

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
     * adopts it).
     */
    void requestStop();
}
