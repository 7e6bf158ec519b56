package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.timeout;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.DisabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * The agent as the child of kube-proxy.exe when kube-proxy.exe is the service: the launcher's events, with a mock at
 * the kernel32 edge. The mocked {@code WaitForSingleObject} behaves as a manual-reset event would: it returns at once when
 * signalled, and otherwise after (a shortened) timeout.
 */
class LauncherStopEventTest {
    private static final long STOP = 724;
    private static final long READY = 728;
    private static final Map<String, String> ENV = Map.of(LauncherStopEvent.STOP_EVENT_VARIABLE, "724",
            LauncherStopEvent.READY_EVENT_VARIABLE, "728");

    private final LauncherStopEvent.Events events = mock(LauncherStopEvent.Events.class);
    private final AtomicBoolean stopSignalled = new AtomicBoolean();
    /** The thread that last waited on the stop event with a timeout: the launcher's watcher. */
    private final AtomicReference<Thread> watcher = new AtomicReference<>();

    LauncherStopEventTest() {
        when(events.waitForSingleObject(eq(STOP), anyInt())).thenAnswer(call -> {
            int millis = call.getArgument(1);
            if (millis > 0) {
                watcher.set(Thread.currentThread());
            }
            if (!stopSignalled.get() && millis > 0) {
                Thread.sleep(Math.min(millis, 5));
            }
            return stopSignalled.get() ? LauncherStopEvent.WAIT_OBJECT_0 : LauncherStopEvent.WAIT_TIMEOUT;
        });
        when(events.waitForSingleObject(eq(READY), anyInt())).thenReturn(LauncherStopEvent.WAIT_TIMEOUT);
        when(events.makeNonInheritable(anyLong())).thenReturn(true);
        when(events.setEvent(READY)).thenReturn(true);
    }

    private LauncherStopEvent launcher() {
        return LauncherStopEvent.fromEnvironment(ENV, () -> events).orElseThrow();
    }

    private CompletableFuture<Integer> runInBackground(LauncherStopEvent launcher, FakeAgent agent) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return launcher.run(agent);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /** {@link #launcher()} running {@code agent} in the background, once the agent has started. */
    private CompletableFuture<Integer> runStarted(FakeAgent agent) throws InterruptedException {
        CompletableFuture<Integer> run = runInBackground(launcher(), agent);
        assertThat(agent.started.await(5, TimeUnit.SECONDS)).isTrue();
        return run;
    }

    @Test
    void withoutTheVariableTheAgentRunsOnItsOwnAndKernel32IsNeverLoaded() {
        assertThat(LauncherStopEvent.fromEnvironment(Map.of("PATH", "C:\\Windows"), () -> {
            throw new AssertionError("Kernel32 loaded");
        })).isEmpty();
        assertThat(LauncherStopEvent.fromEnvironment(Map.of(LauncherStopEvent.STOP_EVENT_VARIABLE, " "), () -> {
            throw new AssertionError("Kernel32 loaded");
        })).isEmpty();
    }

    @Test
    @DisabledOnOs(OS.WINDOWS)
    void elsewhereThanWindowsTheVariableIsIgnored() {
        assertThat(LauncherStopEvent.forThisProcess(ENV)).isEmpty();
    }

    @Test
    void aSignalledStopEventStopsTheAgentOnceAndItsExitCodeIsReturned() throws Exception {
        FakeAgent agent = new FakeAgent();
        CompletableFuture<Integer> run = runStarted(agent);
        Thread.sleep(50);
        assertThat(run).as("still serving before the event").isNotDone();
        assertThat(agent.stopRequests).hasValue(0);

        stopSignalled.set(true);

        assertThat(run.get(5, TimeUnit.SECONDS)).isZero();
        assertThat(agent.stopRequests).hasValue(1);
    }

    @Test
    void aStopSignalledBeforeTheAgentRunsStopsItAsSoonAsItRuns() throws Exception {
        stopSignalled.set(true);
        FakeAgent agent = new FakeAgent();

        assertThat(runInBackground(launcher(), agent).get(5, TimeUnit.SECONDS)).isZero();
        assertThat(agent.stopRequests).hasValue(1);
    }

    @Test
    void theAgentsReadySetsTheReadyEventOnce() throws Exception {
        FakeAgent agent = new FakeAgent();
        CompletableFuture<Integer> run = runInBackground(launcher(), agent);
        verify(events, never()).setEvent(anyLong());

        agent.ready(); // the fake calls ready every few milliseconds from now on
        verify(events, timeout(5_000)).setEvent(READY);
        Thread.sleep(50);
        verify(events).setEvent(READY);

        stopSignalled.set(true);
        assertThat(run.get(5, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void withoutAReadyEventReadyIsHarmless() throws Exception {
        LauncherStopEvent launcher = LauncherStopEvent.fromEnvironment(
                Map.of(LauncherStopEvent.STOP_EVENT_VARIABLE, "724"), () -> events).orElseThrow();
        FakeAgent agent = new FakeAgent();
        agent.ready();
        CompletableFuture<Integer> run = runInBackground(launcher, agent);
        Thread.sleep(50);
        stopSignalled.set(true);

        assertThat(run.get(5, TimeUnit.SECONDS)).isZero();
        verify(events, never()).setEvent(anyLong());
    }

    @Test
    void anAgentThatEndsOnItsOwnReturnsItsCodeForTheLauncherToReportAndIsNotAskedToStop() throws Exception {
        FakeAgent agent = new FakeAgent();
        CompletableFuture<Integer> run = runStarted(agent);

        agent.exit(2);

        assertThat(run.get(5, TimeUnit.SECONDS)).isEqualTo(2);
        // the watcher waits from before the agent starts (unless it was never scheduled until the agent had ended,
        // and then it never waits); once the run has returned it must end
        Thread watching = watcher.get();
        if (watching != null) {
            watching.join(5_000);
            assertThat(watching.isAlive()).as("the watcher has stopped waiting").isFalse();
        }
        assertThat(agent.stopRequests).hasValue(0);
    }

    @Test
    void theInheritedHandlesAreCheckedAndNotPassedOnToTheAgentsOwnChildren() {
        launcher();

        verify(events).waitForSingleObject(STOP, 0);
        verify(events).waitForSingleObject(READY, 0);
        verify(events).makeNonInheritable(STOP);
        verify(events).makeNonInheritable(READY);
    }

    @Test
    void aValueThatIsNotAHandleNumberIsRefusedNamingTheVariable() {
        assertThatThrownBy(() -> LauncherStopEvent.fromEnvironment(
                Map.of(LauncherStopEvent.STOP_EVENT_VARIABLE, "Global\\stop"), () -> events))
                .isInstanceOf(WindowsServiceException.class)
                .hasMessageStartingWith("WINPROXY_STOP_EVENT=Global\\stop: not a handle number");
    }

    @Test
    void aHandleThisProcessDidNotInheritIsRefusedNamingTheVariable() {
        when(events.waitForSingleObject(1234, 0)).thenReturn(LauncherStopEvent.WAIT_FAILED);
        when(events.lastError()).thenReturn(6); // ERROR_INVALID_HANDLE

        assertThatThrownBy(() -> LauncherStopEvent.fromEnvironment(
                Map.of(LauncherStopEvent.STOP_EVENT_VARIABLE, "1234"), () -> events))
                .isInstanceOf(WindowsServiceException.class)
                .hasMessageStartingWith("WINPROXY_STOP_EVENT=1234: not an event handle this process inherited (Win32 error 6)");
    }
}
