package io.winproxy.agent.winsvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.Test;

class ProcessPriorityTest {
    private final ProcessPriorityApi api = mock(ProcessPriorityApi.class);
    private final ProcessPriority priority = new ProcessPriority(api);

    @Test
    void aDifferentClassIsSetAndReadBack() {
        when(api.getPriorityClass()).thenReturn(0x20, 0x8000);

        assertThat(priority.apply(PriorityClass.ABOVE_NORMAL_PRIORITY_CLASS))
                .isEqualTo(PriorityClass.ABOVE_NORMAL_PRIORITY_CLASS);
        verify(api).setPriorityClass(0x8000);
    }

    @Test
    void theClassAlreadyInEffectIsNotSetAgain() {
        when(api.getPriorityClass()).thenReturn(0x20);

        assertThat(priority.apply(PriorityClass.NORMAL_PRIORITY_CLASS)).isEqualTo(PriorityClass.NORMAL_PRIORITY_CLASS);
        verify(api, never()).setPriorityClass(anyInt());
    }

    @Test
    void realtimeWithoutThePrivilegeReturnsTheHighClassWindowsGranted() {
        when(api.getPriorityClass()).thenReturn(0x20, 0x80);

        assertThat(priority.apply(PriorityClass.REALTIME_PRIORITY_CLASS)).isEqualTo(PriorityClass.HIGH_PRIORITY_CLASS);
        verify(api).setPriorityClass(0x100);
    }

    @Test
    void aRefusedChangeSurfacesTheWin32Error() {
        when(api.getPriorityClass()).thenReturn(0x20);
        doThrow(new WindowsServiceException("SetPriorityClass", 5, "access denied")).when(api).setPriorityClass(0x80);

        assertThatThrownBy(() -> priority.apply(PriorityClass.HIGH_PRIORITY_CLASS))
                .isInstanceOfSatisfying(WindowsServiceException.class, e -> assertThat(e.win32Error()).isEqualTo(5));
    }
}
