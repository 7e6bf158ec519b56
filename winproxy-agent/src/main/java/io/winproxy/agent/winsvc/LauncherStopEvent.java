package io.winproxy.agent.winsvc;

import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.platform.win32.Kernel32;
import com.sun.jna.platform.win32.WinBase;
import com.sun.jna.platform.win32.WinNT;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's side of {@code kube-proxy.exe} being the Windows service. When the SCM starts {@code kube-proxy.exe}
 * (a service registered with it as the binary path), that process is the service and the agent is its child, which
 * cannot connect to the SCM. The launcher then hands the agent two inheritable, manual-reset event handles as
 * decimal numbers in the environment:
 * <ul>
 *   <li>{@value #STOP_EVENT_VARIABLE}: signalled when the service is asked to stop (STOP, SHUTDOWN, PRESHUTDOWN);
 *       the agent then stops gracefully, as on Ctrl+C, leaving HNS in place. A service has no console to send
 *       Ctrl+C to, and Java takes Ctrl+Break for a thread dump, hence the event.</li>
 *   <li>{@value #READY_EVENT_VARIABLE} (optional): set by the agent once it serves; the launcher reports
 *       {@code RUNNING} then.</li>
 * </ul>
 * With these, {@code --windows-service} (or {@code windowsRunAsService: true}) runs the proxy as a console process
 * would, and the launcher does the talking to the SCM. The launcher waits a bounded time after the stop request and
 * then terminates the agent.
 *
 * <p>The handles are made non-inheritable on arrival, so that processes the agent may start do not keep them open.
 */
public final class LauncherStopEvent {
    /** The stop event's handle, set by {@code kube-proxy.exe} when it is the service. */
    public static final String STOP_EVENT_VARIABLE = "WINPROXY_STOP_EVENT";
    /** The ready event's handle. */
    public static final String READY_EVENT_VARIABLE = "WINPROXY_READY_EVENT";

    /** How long one wait on the stop event lasts, so that the watcher ends soon after the agent does. */
    static final int POLL_MILLIS = 500;

    // WaitForSingleObject's results
    static final int WAIT_OBJECT_0 = 0;
    static final int WAIT_TIMEOUT = 258;
    static final int WAIT_FAILED = -1;

    private static final Logger logger = LoggerFactory.getLogger(LauncherStopEvent.class);

    /** The thin edge over the kernel32 event calls, on handle values; {@link JnaEvents} in production. */
    interface Events {
        /** {@code WaitForSingleObject}: {@link #WAIT_OBJECT_0}, {@link #WAIT_TIMEOUT} or {@link #WAIT_FAILED}. */
        int waitForSingleObject(long handle, int millis);

        /** {@code SetEvent}. */
        boolean setEvent(long handle);

        /** {@code SetHandleInformation(handle, HANDLE_FLAG_INHERIT, 0)}. */
        boolean makeNonInheritable(long handle);

        /** {@code GetLastError()} of the last call on this thread. */
        int lastError();
    }

    private final Events events;
    private final long stop;
    private final long ready;
    private final AtomicBoolean readySignalled = new AtomicBoolean();

    private LauncherStopEvent(Events events, long stop, long ready) {
        this.events = events;
        this.stop = stop;
        this.ready = ready;
    }

    /**
     * The launcher's events for this process: empty when {@value #STOP_EVENT_VARIABLE} is not set, and on other
     * operating systems than Windows (where nothing sets it).
     *
     * @throws WindowsServiceException when a variable does not name an event this process inherited
     */
    public static Optional<LauncherStopEvent> forThisProcess(Map<String, String> env) {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        if (!windows) {
            if (env.containsKey(STOP_EVENT_VARIABLE)) {
                logger.atWarn().setMessage("Ignored on this operating system")
                        .addKeyValue("variable", STOP_EVENT_VARIABLE).log();
            }
            return Optional.empty();
        }
        Optional<LauncherStopEvent> launcher = fromEnvironment(env, JnaEvents::new);
        if (launcher.isPresent()) {
            // kube-proxy.exe is the service: it reports under the source too (a stop that timed out).
            EventSource.registerForThisProcess();
        }
        return launcher;
    }

    /**
     * As {@link #forThisProcess}, on Windows, with the given binding ({@code events} is asked for only when the
     * variable is set, so that the native library is loaded only then).
     */
    static Optional<LauncherStopEvent> fromEnvironment(Map<String, String> env, Supplier<Events> events) {
        String stopValue = env.get(STOP_EVENT_VARIABLE);
        if (stopValue == null || stopValue.isBlank()) {
            return Optional.empty();
        }
        Events api = events.get();
        long stop = inherited(api, STOP_EVENT_VARIABLE, stopValue);
        String readyValue = env.get(READY_EVENT_VARIABLE);
        long ready = readyValue == null || readyValue.isBlank() ? 0 : inherited(api, READY_EVENT_VARIABLE, readyValue);
        return Optional.of(new LauncherStopEvent(api, stop, ready));
    }

    /** The handle a variable names, checked to be waitable here and made non-inheritable. */
    private static long inherited(Events api, String variable, String value) {
        long handle;
        try {
            handle = Long.parseUnsignedLong(value.strip());
        } catch (NumberFormatException e) {
            throw new WindowsServiceException("WaitForSingleObject", 0,
                    variable + "=" + value + ": not a handle number; it is set by kube-proxy.exe when that runs as the"
                            + " service, unset it to run the agent on its own");
        }
        int state = handle == 0 ? WAIT_FAILED : api.waitForSingleObject(handle, 0);
        if (state != WAIT_OBJECT_0 && state != WAIT_TIMEOUT) {
            int error = handle == 0 ? 0 : api.lastError();
            throw new WindowsServiceException("WaitForSingleObject", error,
                    variable + "=" + value + ": not an event handle this process inherited (Win32 error " + error
                            + "); it is set by kube-proxy.exe when that runs as the service, unset it to run the"
                            + " agent on its own");
        }
        if (!api.makeNonInheritable(handle)) {
            logger.atDebug().setMessage("Cannot make the handle non-inheritable").addKeyValue("variable", variable)
                    .addKeyValue("win32Error", api.lastError()).log();
        }
        return handle;
    }

    /**
     * Runs {@code agent} on the calling thread until it returns. When the stop event is signalled (also before the
     * agent got going), {@link ServiceAgent#requestStop()} is called once, on a thread of its own; when the agent
     * calls ready, the ready event is set.
     *
     * @return the agent's exit code, which the launcher reports to the SCM
     */
    public int run(ServiceAgent agent) throws Exception {
        Objects.requireNonNull(agent, "agent");
        AtomicBoolean finished = new AtomicBoolean();
        Thread watcher = new Thread(() -> watch(agent, finished), "winproxy-launcher-stop");
        watcher.setDaemon(true);
        watcher.start();
        logger.atInfo().setMessage("Running as the child of kube-proxy.exe, which is the Windows service; stopping when"
                + " it asks").log();
        try {
            return agent.run(this::signalReady);
        } finally {
            finished.set(true);
        }
    }

    private void watch(ServiceAgent agent, AtomicBoolean finished) {
        while (!finished.get()) {
            int state = events.waitForSingleObject(stop, POLL_MILLIS);
            if (state == WAIT_OBJECT_0) {
                logger.atInfo().setMessage("The service is stopping; stopping")
                        .addKeyValue("signalled", STOP_EVENT_VARIABLE).log();
                try {
                    agent.requestStop();
                } catch (RuntimeException e) {
                    logger.atError().setMessage("The stop request failed").setCause(e).log();
                }
                return;
            }
            if (state != WAIT_TIMEOUT) {
                // Keep serving: kube-proxy.exe terminates the agent when a stop request outlasts its timeout.
                logger.atError().setMessage("Cannot wait for the stop event; a service stop will end the agent only"
                        + " after the launcher's stop timeout").addKeyValue("variable", STOP_EVENT_VARIABLE)
                        .addKeyValue("win32Error", events.lastError()).log();
                return;
            }
        }
    }

    private void signalReady() {
        if (ready == 0 || !readySignalled.compareAndSet(false, true)) {
            return;
        }
        if (!events.setEvent(ready)) {
            logger.atWarn().setMessage("Cannot signal the ready event; kube-proxy.exe reports the service running"
                    + " after its ready timeout").addKeyValue("variable", READY_EVENT_VARIABLE)
                    .addKeyValue("win32Error", events.lastError()).log();
        }
    }

    /** {@link Events} over jna-platform's {@link Kernel32}. Windows only: the library is loaded on construction. */
    static final class JnaEvents implements Events {
        private final Kernel32 kernel32 = Kernel32.INSTANCE;

        @Override
        public int waitForSingleObject(long handle, int millis) {
            return kernel32.WaitForSingleObject(handle(handle), millis);
        }

        @Override
        public boolean setEvent(long handle) {
            return kernel32.SetEvent(handle(handle));
        }

        @Override
        public boolean makeNonInheritable(long handle) {
            return kernel32.SetHandleInformation(handle(handle), WinBase.HANDLE_FLAG_INHERIT, 0);
        }

        @Override
        public int lastError() {
            return Native.getLastError();
        }

        private static WinNT.HANDLE handle(long value) {
            return new WinNT.HANDLE(new Pointer(value));
        }
    }
}
