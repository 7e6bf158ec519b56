package io.winproxy.agent.winsvc;

import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the agent as a Windows service ({@code --windows-service}): the JVM process itself is the service, with no
 * wrapper executable.
 *
 * <p>Lifecycle reported to the SCM: {@code START_PENDING} (checkpoint advancing every heartbeat, accepting STOP and
 * SHUTDOWN) until the agent calls ready or {@link ServiceTimings#readyTimeout()} passes, then {@code RUNNING}
 * accepting STOP, SHUTDOWN and PARAMCHANGE. STOP, SHUTDOWN (and PRESHUTDOWN, should it arrive) report
 * {@code STOP_PENDING} and call {@link ServiceAgent#requestStop()} once, on a thread of its own; a stop that arrives
 * while starting is honoured the same way and {@code RUNNING} is then never reported. When the agent returns,
 * {@code STOPPED} is reported with:
 * <ul>
 *   <li>exit code 0 after a requested stop, whatever the agent returned and even when it outlasted the stop
 *       timeout: the operator asked for the stop, and a failure code would make the SCM restart the service
 *       (a failure while stopping is logged);</li>
 *   <li>{@code ERROR_SERVICE_SPECIFIC_ERROR} with the agent's code as {@code dwServiceSpecificExitCode} when the
 *       agent ended on its own: it returned non-zero, threw (code 1), or returned 0 unasked (code 1). A non-zero exit
 *       code is what makes the SCM run the recovery actions that {@code install-service.ps1} configures, which
 *       the wrappers used with upstream kube-proxy fail to do.</li>
 * </ul>
 * An instance runs one service once; it must stay reachable until {@link #run} returns (JNA callbacks).
 */
public final class WindowsServiceHost {
    /** The service name kube-proxy uses on most platforms; {@code kubeproxy} is the AKS spelling. */
    public static final String DEFAULT_SERVICE_NAME = "kube-proxy";

    private static final Logger logger = LoggerFactory.getLogger(WindowsServiceHost.class);

    private final ScmApi scm;
    private final ServiceTimings timings;
    private final AtomicBoolean used = new AtomicBoolean();

    public WindowsServiceHost(ScmApi scm, ServiceTimings timings) {
        this.scm = Objects.requireNonNull(scm, "scm");
        this.timings = Objects.requireNonNull(timings, "timings");
    }

    /**
     * The host for a real Windows process (jna-platform {@code Advapi32}); loads the native library, and registers
     * the event source when it is missing ({@link EventSource}).
     */
    public static WindowsServiceHost forWindows() {
        EventSource.registerForThisProcess();
        return new WindowsServiceHost(new JnaScmApi(), ServiceTimings.DEFAULTS);
    }

    /**
     * Connects to the SCM and runs {@code agent} as the service this process was started as; blocks until the
     * service has reported {@code STOPPED}. Call it from {@code main} promptly: the SCM waits about 30 s for the
     * connection.
     *
     * @return the exit code for the process: 0 after a clean, requested stop; otherwise the service-specific code
     * @throws WindowsServiceException when the SCM connection fails, for example because the process was started
     *                                 from a console ({@link WindowsServiceException#isNotStartedByScm()})
     */
    public int run(ServiceAgent agent) {
        return run(DEFAULT_SERVICE_NAME, agent);
    }

    /**
     * As {@link #run(ServiceAgent)}. {@code serviceName} names the service until the SCM tells the real one (the
     * first argument of the service main function, which is what the log then shows); for a service of its own
     * process the SCM does not check it, so one binary serves under any name ({@code kube-proxy},
     * {@code kubeproxy}, ...).
     */
    public int run(String serviceName, ServiceAgent agent) {
        Objects.requireNonNull(serviceName, "serviceName");
        Objects.requireNonNull(agent, "agent");
        if (!used.compareAndSet(false, true)) {
            throw new IllegalStateException("a WindowsServiceHost runs one service once");
        }
        Session session = new Session(serviceName, agent);
        try {
            scm.runDispatcher(serviceName, session::serviceMain);
        } catch (WindowsServiceException e) {
            if (e.isNotStartedByScm()) {
                throw new WindowsServiceException(e.operation(), e.win32Error(), "--windows-service: the process "
                        + "was not started by the Service Control Manager; run it without --windows-service in a "
                        + "console, or start the service with Start-Service " + serviceName);
            }
            throw e;
        }
        if (session.failure != null) {
            throw session.failure;
        }
        return session.exitCode.get();
    }

    /** One run of the service: the state shared by the service-main thread, the control thread and the agent. */
    private final class Session {
        private volatile String serviceName;
        private final ServiceAgent agent;
        private final CountDownLatch ready = new CountDownLatch(1);
        private final CountDownLatch finished = new CountDownLatch(1);
        private final AtomicBoolean stopRequested = new AtomicBoolean();
        private final AtomicLong stopRequestedAt = new AtomicLong();
        private final AtomicInteger agentCode = new AtomicInteger();
        private final AtomicInteger exitCode = new AtomicInteger();
        private volatile StatusReporter reporter;
        private volatile WindowsServiceException failure;

        Session(String serviceName, ServiceAgent agent) {
            this.serviceName = serviceName;
            this.agent = agent;
        }

        /** Runs on the SCM's thread; must not return before STOPPED has been reported (MS KB 201349). */
        void serviceMain(String[] args) {
            if (args != null && args.length > 0 && args[0] != null && !args[0].isBlank()) {
                serviceName = args[0];
            }
            ScmApi.StatusHandle handle;
            try {
                handle = scm.registerControlHandler(serviceName, this::onControl);
            } catch (WindowsServiceException e) {
                failure = e;
                return;
            }
            reporter = new StatusReporter(scm, handle, timings.waitHintMillis());
            reporter.report(ServiceState.START_PENDING);
            logger.atInfo().setMessage("Service starting").addKeyValue("service", serviceName).log();
            Thread agentThread = new Thread(this::runAgent, "winproxy-agent");
            agentThread.start();
            try {
                awaitReady();
                if (finished.getCount() > 0 && reporter.report(ServiceState.RUNNING)) {
                    logger.atInfo().setMessage("Service running").addKeyValue("service", serviceName).log();
                }
                awaitFinished();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                agentCode.set(1);
            }
            reportStopped();
        }

        private void runAgent() {
            int code;
            try {
                code = agent.run(ready::countDown);
            } catch (Exception | Error e) {
                logger.atError().setMessage("The agent failed").setCause(e).log();
                code = 1;
            }
            agentCode.set(code);
            finished.countDown();
        }

        private void awaitReady() throws InterruptedException {
            long deadline = System.nanoTime() + timings.readyTimeout().toNanos();
            while (finished.getCount() > 0 && !ready.await(timings.heartbeat().toMillis(), TimeUnit.MILLISECONDS)) {
                if (stopRequested.get()) {
                    return;
                }
                if (System.nanoTime() - deadline >= 0) {
                    logger.atWarn().setMessage("The agent is not ready; reporting RUNNING while it keeps trying")
                            .addKeyValue("readyTimeout", timings.readyTimeout()).log();
                    return;
                }
                reporter.report(ServiceState.START_PENDING);
            }
        }

        private void awaitFinished() throws InterruptedException {
            while (!finished.await(timings.heartbeat().toMillis(), TimeUnit.MILLISECONDS)) {
                if (stopRequested.get()) {
                    if (System.nanoTime() - stopRequestedAt.get() - timings.stopTimeout().toNanos() >= 0) {
                        logger.atWarn().setMessage("The agent did not stop in time; reporting the service stopped")
                                .addKeyValue("stopTimeout", timings.stopTimeout()).log();
                        return;
                    }
                    reporter.report(ServiceState.STOP_PENDING);
                }
            }
        }

        private void reportStopped() {
            boolean done = finished.getCount() == 0;
            int code = agentCode.get();
            if (!done) {
                exitCode.set(0);
                reporter.stopped(Win32Service.NO_ERROR, 0);
            } else if (stopRequested.get()) {
                if (code != 0) {
                    logger.atWarn().setMessage("The agent stopped with an exit code after the stop request; reporting"
                            + " a clean stop so that the SCM does not restart a service the operator stopped")
                            .addKeyValue("exitCode", code).log();
                }
                exitCode.set(0);
                reporter.stopped(Win32Service.NO_ERROR, 0);
                logger.atInfo().setMessage("Service stopped").addKeyValue("service", serviceName).log();
            } else {
                int specific = code != 0 ? code : 1;
                if (code == 0) {
                    logger.atError().setMessage("The agent stopped without a stop request; reporting a failure so"
                            + " that the SCM recovery actions restart it").log();
                }
                exitCode.set(specific);
                reporter.stopped(Win32Service.ERROR_SERVICE_SPECIFIC_ERROR, specific);
                logger.atError().setMessage("Service stopped with an exit code").addKeyValue("service", serviceName)
                        .addKeyValue("exitCode", specific).log();
            }
        }

        /** Runs on the SCM's control thread: quick, never blocking. */
        private int onControl(int control, int eventType) {
            if (reporter == null) {
                // Registered but not yet reporting: the SCM sends no control before the first status report.
                return Win32Service.NO_ERROR;
            }
            switch (control) {
                case Win32Service.CONTROL_STOP, Win32Service.CONTROL_SHUTDOWN, Win32Service.CONTROL_PRESHUTDOWN -> {
                    requestStop(control);
                    return Win32Service.NO_ERROR;
                }
                case Win32Service.CONTROL_INTERROGATE, Win32Service.CONTROL_PARAMCHANGE -> {
                    reporter.repeat();
                    return Win32Service.NO_ERROR;
                }
                default -> {
                    return Win32Service.ERROR_CALL_NOT_IMPLEMENTED;
                }
            }
        }

        private void requestStop(int control) {
            if (!stopRequested.compareAndSet(false, true)) {
                reporter.repeat();
                return;
            }
            stopRequestedAt.set(System.nanoTime());
            logger.atInfo().setMessage("Service control requested, stopping").addKeyValue("service", serviceName)
                    .addKeyValue("control", control == Win32Service.CONTROL_STOP ? "stop" : "shutdown").log();
            reporter.report(ServiceState.STOP_PENDING);
            // On a thread of its own, so that an agent whose stop blocks cannot hold up the SCM's control thread.
            Thread stopper = new Thread(() -> {
                try {
                    agent.requestStop();
                } catch (RuntimeException e) {
                    logger.atError().setMessage("The agent's stop request failed").setCause(e).log();
                }
            }, "winproxy-service-stop");
            stopper.setDaemon(true);
            stopper.start();
        }
    }
}
