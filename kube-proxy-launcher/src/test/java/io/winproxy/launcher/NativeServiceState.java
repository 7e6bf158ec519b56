package io.winproxy.launcher;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.Structure;
import java.util.EnumSet;
import java.util.Set;

/**
 * The launcher's service state machine (src/main/c/svcstate.c), built with the host gcc into
 * {@code target/native/libkubeproxyservice.so} and driven through JNA with a clock the test moves by hand. One
 * instance is one machine ({@code svc_machine}, allocated at the size the library reports).
 */
final class NativeServiceState {
    /** {@code svc_step}: the actions, the {@code SERVICE_STATUS} to report, the control handler's return value. */
    @Structure.FieldOrder({"actions", "currentState", "controlsAccepted", "win32ExitCode", "serviceSpecificExitCode",
            "checkPoint", "waitHint", "handlerResult"})
    public static class NativeStep extends Structure implements Structure.ByValue {
        public int actions;
        public int currentState;
        public int controlsAccepted;
        public int win32ExitCode;
        public int serviceSpecificExitCode;
        public int checkPoint;
        public int waitHint;
        public int handlerResult;
    }

    @Structure.FieldOrder({"waitHintMs", "heartbeatMs", "readyTimeoutMs", "stopTimeoutMs"})
    public static class Timings extends Structure {
        public int waitHintMs;
        public int heartbeatMs;
        public int readyTimeoutMs;
        public int stopTimeoutMs;
    }

    interface SvcState extends Library {
        void svc_default_timings(Timings timings);

        int svc_machine_size();

        void svc_init(Pointer machine, Timings timings);

        NativeStep svc_start(Pointer machine, long now);

        NativeStep svc_before_launch(Pointer machine, long now);

        NativeStep svc_child_started(Pointer machine, long now);

        NativeStep svc_ready(Pointer machine, long now);

        NativeStep svc_tick(Pointer machine, long now);

        NativeStep svc_control(Pointer machine, int control, long now);

        NativeStep svc_child_exited(Pointer machine, int exitCode, long now);

        NativeStep svc_launch_failed(Pointer machine, int exitCode, long now);

        int svc_next_wait(Pointer machine, long now);

        int svc_ready_timed_out(Pointer machine);

        int svc_run_as_service(int windowsServiceFlag, int startedByScm);
    }

    static final SvcState LIBRARY = Native.load("kubeproxyservice", SvcState.class);

    // winsvc.h / winerror.h
    static final int STOPPED = 1;
    static final int START_PENDING = 2;
    static final int STOP_PENDING = 3;
    static final int RUNNING = 4;
    static final int CONTROL_STOP = 0x1;
    static final int CONTROL_PAUSE = 0x2;
    static final int CONTROL_INTERROGATE = 0x4;
    static final int CONTROL_SHUTDOWN = 0x5;
    static final int CONTROL_PARAMCHANGE = 0x6;
    static final int CONTROL_PRESHUTDOWN = 0xF;
    static final int ACCEPT_STOP = 0x1;
    static final int ACCEPT_SHUTDOWN = 0x4;
    static final int NO_ERROR = 0;
    static final int ERROR_CALL_NOT_IMPLEMENTED = 120;
    static final int ERROR_SERVICE_SPECIFIC_ERROR = 1066;
    static final long WAIT_FOREVER = 0xFFFFFFFFL;

    enum Action {
        REPORT(0x1), SIGNAL_STOP(0x2), LAUNCH(0x4), TERMINATE(0x8);

        final int bit;

        Action(int bit) {
            this.bit = bit;
        }
    }

    /** SERVICE_STATUS without the service type. */
    record Status(int state, int controlsAccepted, int win32ExitCode, int serviceSpecificExitCode, int checkPoint,
                  int waitHint) {
    }

    /** One step; {@code status} is null unless the step reports. */
    record Step(Set<Action> actions, Status status, int handlerResult) {
        boolean reports() {
            return actions.contains(Action.REPORT);
        }
    }

    private final Memory machine;
    private long now = 1_000_000L;

    /** A machine with the launcher's default timings. */
    NativeServiceState() {
        this(defaults());
    }

    NativeServiceState(Timings timings) {
        machine = new Memory(LIBRARY.svc_machine_size());
        LIBRARY.svc_init(machine, timings);
    }

    static Timings defaults() {
        Timings timings = new Timings();
        LIBRARY.svc_default_timings(timings);
        timings.read();
        return timings;
    }

    void advance(long millis) {
        now += millis;
    }

    Step start() {
        return step(LIBRARY.svc_start(machine, now));
    }

    Step beforeLaunch() {
        return step(LIBRARY.svc_before_launch(machine, now));
    }

    Step childStarted() {
        return step(LIBRARY.svc_child_started(machine, now));
    }

    Step ready() {
        return step(LIBRARY.svc_ready(machine, now));
    }

    Step tick() {
        return step(LIBRARY.svc_tick(machine, now));
    }

    Step control(int control) {
        return step(LIBRARY.svc_control(machine, control, now));
    }

    Step childExited(int exitCode) {
        return step(LIBRARY.svc_child_exited(machine, exitCode, now));
    }

    Step launchFailed(int exitCode) {
        return step(LIBRARY.svc_launch_failed(machine, exitCode, now));
    }

    /** Milliseconds until a tick is due, {@link #WAIT_FOREVER} when none is. */
    long nextWait() {
        return Integer.toUnsignedLong(LIBRARY.svc_next_wait(machine, now));
    }

    boolean readyTimedOut() {
        return LIBRARY.svc_ready_timed_out(machine) != 0;
    }

    /** Starts the service and the agent, as service.c does, and returns the last step. */
    Step startAndLaunch() {
        start();
        if (!beforeLaunch().actions().contains(Action.LAUNCH)) {
            throw new AssertionError("the agent was not launched");
        }
        return childStarted();
    }

    private static Step step(NativeStep raw) {
        Set<Action> actions = EnumSet.noneOf(Action.class);
        for (Action action : Action.values()) {
            if ((raw.actions & action.bit) != 0) {
                actions.add(action);
            }
        }
        if ((raw.actions & ~0xF) != 0) {
            throw new AssertionError("unknown action bits " + Integer.toHexString(raw.actions));
        }
        Status status = actions.contains(Action.REPORT) ? new Status(raw.currentState, raw.controlsAccepted,
                raw.win32ExitCode, raw.serviceSpecificExitCode, raw.checkPoint, raw.waitHint) : null;
        return new Step(actions, status, raw.handlerResult);
    }
}
