package io.winproxy.installer;

import java.util.Objects;
import java.util.Optional;

/**
 * Registers and removes the winproxy service through {@link ServiceConfigApi}: the same result as
 * {@code install-service.ps1} (create, description, start type, recovery actions and the failure-actions flag),
 * for hosts where PowerShell scripts may not run. A registration either completes or leaves no service behind: a
 * step that fails after the service was created deletes it again. Every handle is closed.
 */
public final class ServiceRegistrar {
    private final ServiceConfigApi api;

    public ServiceRegistrar(ServiceConfigApi api) {
        this.api = Objects.requireNonNull(api, "api");
    }

    /**
     * Creates and configures the service.
     *
     * @param replace delete a stopped service of the same name first; without it an existing service is an error
     * @throws RegistrationException naming the service and what to do, e.g. when it exists or is still running
     */
    public void install(ServiceDefinition definition, boolean replace) {
        ServiceConfigApi.Handle manager = api.openManager();
        try {
            Optional<ServiceConfigApi.Handle> existing = api.openService(manager, definition.name());
            if (existing.isPresent()) {
                removeExisting(definition.name(), existing.get(), replace);
            }
            ServiceConfigApi.Handle service = api.createService(manager, definition.name(),
                    definition.displayName(), definition.startType().win32(), definition.commandLine(),
                    definition.dependencies());
            try {
                configure(service, definition);
            } catch (RuntimeException e) {
                deleteQuietly(service, e);
                throw e;
            } finally {
                api.close(service);
            }
        } finally {
            api.close(manager);
        }
    }

    /**
     * Deletes the service.
     *
     * @return false when there is no such service
     * @throws RegistrationException when it is still running
     */
    public boolean uninstall(String name) {
        ServiceConfigApi.Handle manager = api.openManager();
        try {
            Optional<ServiceConfigApi.Handle> service = api.openService(manager, name);
            if (service.isEmpty()) {
                return false;
            }
            try {
                if (!api.isStopped(service.get())) {
                    throw new RegistrationException("service " + name + " is running; stop it first (Stop-Service "
                            + name + ")");
                }
                api.delete(service.get());
                return true;
            } finally {
                api.close(service.get());
            }
        } finally {
            api.close(manager);
        }
    }

    private void removeExisting(String name, ServiceConfigApi.Handle service, boolean replace) {
        try {
            if (!replace) {
                throw new RegistrationException("a service named " + name + " already exists; remove it first, "
                        + "or pass --replace");
            }
            if (!api.isStopped(service)) {
                throw new RegistrationException("service " + name + " is running; stop it before replacing it "
                        + "(Stop-Service " + name + ")");
            }
            api.delete(service);
        } finally {
            api.close(service);
        }
    }

    private void configure(ServiceConfigApi.Handle service, ServiceDefinition definition) {
        if (!definition.description().isEmpty()) {
            api.setDescription(service, definition.description());
        }
        if (definition.startType().delayed()) {
            api.setDelayedAutoStart(service, true);
        }
        RecoveryActions recovery = definition.recovery();
        api.setFailureActions(service, recovery.restartDelaysMillis(), recovery.resetPeriodSeconds());
        api.setFailureActionsOnNonCrashFailures(service, recovery.onNonCrashFailures());
    }

    private void deleteQuietly(ServiceConfigApi.Handle service, RuntimeException cause) {
        try {
            api.delete(service);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}
