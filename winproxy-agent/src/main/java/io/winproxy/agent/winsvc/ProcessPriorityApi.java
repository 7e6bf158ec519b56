package io.winproxy.agent.winsvc;

/** The thin edge over {@code kernel32} {@code GetPriorityClass}/{@code SetPriorityClass} for the current process. */
public interface ProcessPriorityApi {

    /** {@code GetPriorityClass(GetCurrentProcess())}; throws {@link WindowsServiceException} on failure. */
    int getPriorityClass();

    /** {@code SetPriorityClass(GetCurrentProcess(), value)}; throws {@link WindowsServiceException} on failure. */
    void setPriorityClass(int value);
}
