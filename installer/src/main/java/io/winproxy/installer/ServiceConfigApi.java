package io.winproxy.installer;

import java.util.List;
import java.util.Optional;

/**
 * The thin edge over the {@code advapi32.dll} service-configuration calls. {@link JnaServiceConfigApi} is the real
 * one; tests mock it. Every method throws {@link RegistrationException} with the Win32 error when the call fails;
 * every handle returned must be given back to {@link #close}.
 */
public interface ServiceConfigApi {

    /** An opaque {@code SC_HANDLE}. */
    interface Handle {
    }

    /** {@code OpenSCManagerW(NULL, NULL, SC_MANAGER_ALL_ACCESS)}. */
    Handle openManager();

    /** {@code OpenServiceW(..., SERVICE_ALL_ACCESS)}; empty when there is no such service. */
    Optional<Handle> openService(Handle manager, String name);

    /**
     * {@code CreateServiceW} for a {@code SERVICE_WIN32_OWN_PROCESS} run as LocalSystem with
     * {@code SERVICE_ERROR_NORMAL}; {@code dependencies} become the double-null-terminated list.
     */
    Handle createService(Handle manager, String name, String displayName, int startType, String commandLine,
            List<String> dependencies);

    /** {@code ChangeServiceConfig2W(SERVICE_CONFIG_DESCRIPTION)}. */
    void setDescription(Handle service, String description);

    /** {@code ChangeServiceConfig2W(SERVICE_CONFIG_DELAYED_AUTO_START_INFO)}. */
    void setDelayedAutoStart(Handle service, boolean delayed);

    /** {@code ChangeServiceConfig2W(SERVICE_CONFIG_FAILURE_ACTIONS)} with one {@code SC_ACTION_RESTART} per delay. */
    void setFailureActions(Handle service, List<Integer> restartDelaysMillis, int resetPeriodSeconds);

    /** {@code ChangeServiceConfig2W(SERVICE_CONFIG_FAILURE_ACTIONS_FLAG)}. */
    void setFailureActionsOnNonCrashFailures(Handle service, boolean enabled);

    /**
     * What the SCM stored of the settings this installer writes, as {@code QueryServiceConfig2W} reads them back
     * ({@code SERVICE_CONFIG_FAILURE_ACTIONS}, {@code SERVICE_CONFIG_FAILURE_ACTIONS_FLAG},
     * {@code SERVICE_CONFIG_DELAYED_AUTO_START_INFO}).
     *
     * @param restartDelaysMillis the delay of each action, in order; only {@code SC_ACTION_RESTART} actions are
     *                            listed, any other action type is reported as -1
     */
    record StoredSettings(List<Integer> restartDelaysMillis, int resetPeriodSeconds, boolean onNonCrashFailures,
            boolean delayedAutoStart) {
        public StoredSettings {
            restartDelaysMillis = List.copyOf(restartDelaysMillis);
        }
    }

    /** Reads back the recovery actions, the failure-actions flag and the delayed-auto-start flag. */
    StoredSettings query(Handle service);

    /**
     * What {@code QueryServiceConfigW} reports of a service.
     *
     * @param binaryPath   the command line the SCM starts
     * @param startType    {@code SERVICE_AUTO_START} (2), {@code SERVICE_DEMAND_START} (3), ...
     * @param dependencies the services (and {@code +}groups) it depends on
     * @param account      the account it runs as ({@code LocalSystem}, {@code NT AUTHORITY\LocalService}, ...)
     */
    record ServiceConfig(String binaryPath, int startType, List<String> dependencies, String account,
            String displayName) {
        public ServiceConfig {
            dependencies = List.copyOf(dependencies);
        }
    }

    /** {@code QueryServiceConfigW}. */
    ServiceConfig queryConfig(Handle service);

    /** {@code ChangeServiceConfigW} with only a new binary path: everything else is left as it is. */
    void setBinaryPath(Handle service, String binaryPath);

    /** Whether {@code QueryServiceStatus} reports {@code SERVICE_STOPPED}. */
    boolean isStopped(Handle service);

    /** {@code DeleteService}: the SCM removes the service once every handle to it is closed. */
    void delete(Handle service);

    /** {@code CloseServiceHandle}; never throws. */
    void close(Handle handle);
}
