package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class EventSourceTest {
    private final EventLogApi api = mock(EventLogApi.class);

    @Test
    void theWinproxySourceIsRegisteredAndSaysWhetherItWasNew() {
        when(api.registerSource("winproxy")).thenReturn(true);

        assertThat(EventSource.registerQuietly(api)).isTrue();
        verify(api).registerSource(EventSource.NAME);
        assertThat(StartupFailureReporter.EVENT_SOURCE).isEqualTo(EventSource.NAME);
    }

    @Test
    void aProcessThatMayNotRegisterItCarriesOn() {
        doThrow(new IllegalStateException("Access is denied")).when(api).registerSource("winproxy");
        assertThat(EventSource.registerQuietly(api)).isFalse();

        EventLogApi noNative = mock(EventLogApi.class);
        doThrow(new UnsatisfiedLinkError("jnidispatch")).when(noNative).registerSource("winproxy");
        assertThat(EventSource.registerQuietly(noNative)).isFalse();
    }
}
