package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The real Win32 calls that need no installed service. */
@EnabledOnOs(OS.WINDOWS)
class WinsvcWindowsIT {

    @Test
    void thePriorityClassOfThisProcessCanBeChangedAndRestored() {
        ProcessPriority priority = ProcessPriority.forWindows();
        PriorityClass original = priority.current();
        try {
            assertThat(priority.apply(PriorityClass.BELOW_NORMAL_PRIORITY_CLASS))
                    .isEqualTo(PriorityClass.BELOW_NORMAL_PRIORITY_CLASS);
            assertThat(priority.current()).isEqualTo(PriorityClass.BELOW_NORMAL_PRIORITY_CLASS);
        } finally {
            priority.apply(original);
        }
        assertThat(priority.current()).isEqualTo(original);
    }

    @Test
    void aProcessNotStartedByTheScmIsToldSoByTheDispatcher() {
        WindowsServiceHost host = WindowsServiceHost.forWindows();
        FakeAgent agent = new FakeAgent();

        assertThatThrownBy(() -> host.run("winproxy-it", agent))
                .isInstanceOfSatisfying(WindowsServiceException.class, e -> {
                    assertThat(e.isNotStartedByScm()).isTrue();
                    assertThat(e.getMessage()).contains("--windows-service");
                });
        assertThat(agent.started.getCount()).isOne();
    }
}
