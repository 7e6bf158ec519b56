package io.winproxy.agent.winsvc;

import java.util.Locale;

/**
 * The Application event log source {@value #NAME}, under which the agent and kube-proxy.exe report what a service
 * cannot say on a console (a failed start, a stop that timed out). {@code install-service.ps1} registers it; the
 * agent registers it itself when it runs as a service or reports a failed start and the source is missing (a
 * kube-proxy.exe swapped in under another launcher), so that the events show their text without Windows'
 * "description cannot be found" preamble. Registering needs an elevated process, as a service is; elsewhere it is
 * skipped quietly and the events are still written.
 */
public final class EventSource {
    /** The source name. */
    public static final String NAME = "winproxy";

    private EventSource() {
    }

    /**
     * Registers the source through {@code api} when it is not registered; never throws.
     *
     * @return whether it was registered now
     */
    static boolean registerQuietly(EventLogApi api) {
        try {
            return api.registerSource(NAME);
        } catch (RuntimeException | LinkageError e) {
            return false; // not elevated, or the registry refused: the events are written unregistered
        }
    }

    /** As {@link #registerQuietly}, for this process on Windows; nothing elsewhere. */
    static void registerForThisProcess() {
        if (System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows")) {
            try {
                registerQuietly(new JnaEventLogApi());
            } catch (LinkageError e) {
                // JNA cannot load: nothing to register with
            }
        }
    }
}
