package io.winproxy.installer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;

/**
 * Registers and removes the winproxy service through {@link ServiceConfigApi}: the same result as
 * {@code install-service.ps1} (create, description, start type, recovery actions and the failure-actions flag),
 * for hosts where PowerShell scripts may not run. A registration either completes or leaves no service behind: a
 * step that fails after the service was created deletes it again. Every handle is closed.
 *
 * <p>{@code DeleteService} only marks a service for deletion; the SCM removes it once every handle to it is closed
 * (a Services console, Event Viewer, a monitoring agent or a stopping process may hold one). Replacing therefore
 * waits, by polling {@code OpenService} until it reports {@code ERROR_SERVICE_DOES_NOT_EXIST}, before creating the
 * new service, and fails after a bound with a message saying what holds it up instead of failing in
 * {@code CreateService} with {@code ERROR_SERVICE_MARKED_FOR_DELETE}.
 */
public final class ServiceRegistrar {
    /** How long {@code --replace} waits for the old service to disappear. */
    public static final Duration DELETE_TIMEOUT = Duration.ofSeconds(30);
    /** How often it looks. */
    public static final Duration DELETE_POLL_INTERVAL = Duration.ofMillis(250);

    /** Waits between two looks; tests pass one that only counts. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration duration) throws InterruptedException;
    }

    private final ServiceConfigApi api;
    private final Duration deleteTimeout;
    private final Duration pollInterval;
    private final Sleeper sleeper;

    public ServiceRegistrar(ServiceConfigApi api) {
        this(api, DELETE_TIMEOUT, DELETE_POLL_INTERVAL, d -> Thread.sleep(d.toMillis()));
    }

    /** As {@link #ServiceRegistrar(ServiceConfigApi)}, waiting at most {@code deleteTimeout} for a replaced service. */
    public ServiceRegistrar(ServiceConfigApi api, Duration deleteTimeout, Duration pollInterval, Sleeper sleeper) {
        this.api = Objects.requireNonNull(api, "api");
        this.deleteTimeout = Objects.requireNonNull(deleteTimeout, "deleteTimeout");
        this.pollInterval = Objects.requireNonNull(pollInterval, "pollInterval");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
        if (pollInterval.isZero() || pollInterval.isNegative()) {
            throw new IllegalArgumentException("pollInterval must be positive, got " + pollInterval);
        }
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
                awaitDeleted(manager, definition.name());
            }
            ServiceConfigApi.Handle service = create(manager, definition);
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

    /**
     * Points an existing kube-proxy service at winproxy's kube-proxy.exe ({@link ServiceReplacement}): only its
     * binary path changes, and the old one is written to {@code record} first, for {@link #rollback}.
     *
     * @return the plan carried out (new binary path, notes)
     * @throws IllegalArgumentException when the service cannot be replaced this way (nssm, a script, a wrapper,
     *                                  flags beside a configuration file)
     * @throws RegistrationException    when there is no such service, or a call fails
     */
    public ServiceReplacement.Plan replace(String name, String kubeProxyExe, List<String> agentArguments,
            Path record) {
        return withService(name, "replace", service -> {
            ServiceConfigApi.ServiceConfig config = api.queryConfig(service);
            ServiceReplacement.Plan plan = ServiceReplacement.plan(name, config.binaryPath(), kubeProxyExe,
                    agentArguments);
            ServiceConfigApi.StoredSettings recovery = api.query(service);
            writeRecord(record, name, config.binaryPath(), plan.binaryPath());
            api.setBinaryPath(service, plan.binaryPath());
            List<String> notes = new ArrayList<>(plan.notes());
            notes.add("kept: account " + config.account() + ", dependencies "
                    + (config.dependencies().isEmpty() ? "none" : String.join(",", config.dependencies()))
                    + ", recovery actions " + (recovery.restartDelaysMillis().isEmpty() ? "none"
                    : recovery.restartDelaysMillis() + " ms, reset after " + recovery.resetPeriodSeconds() + " s")
                    + ", start type and description");
            notes.add("previous binary path saved in " + record + " (rollback puts it back)");
            return new ServiceReplacement.Plan(plan.binaryPath(), notes);
        });
    }

    /**
     * Puts back the binary path {@link #replace} recorded, when the service still has the one it set.
     *
     * @return the binary path restored
     * @throws RegistrationException when the record or the service is missing, or the service was changed since
     */
    public String rollback(String name, Path record) {
        Properties saved = readRecord(record, name);
        return withService(name, "roll back", service -> {
            String now = api.queryConfig(service).binaryPath();
            if (!now.equals(saved.getProperty("replacement"))) {
                throw new RegistrationException("service " + name + " was changed after the replacement (it runs "
                        + now + "); not rolling back over that", 0);
            }
            api.setBinaryPath(service, saved.getProperty("previous"));
            return saved.getProperty("previous");
        });
    }

    /** Runs {@code action} on the service {@code name} (which must exist), closing every handle afterwards. */
    private <T> T withService(String name, String purpose, Function<ServiceConfigApi.Handle, T> action) {
        ServiceConfigApi.Handle manager = api.openManager();
        try {
            ServiceConfigApi.Handle service = api.openService(manager, name).orElseThrow(() ->
                    new RegistrationException("no service named " + name + " to " + purpose,
                            RegistrationException.SERVICE_DOES_NOT_EXIST));
            try {
                return action.apply(service);
            } finally {
                api.close(service);
            }
        } finally {
            api.close(manager);
        }
    }

    private static void writeRecord(Path record, String name, String previous, String replacement) {
        Properties properties = new Properties();
        properties.setProperty("service", name);
        properties.setProperty("previous", previous);
        properties.setProperty("replacement", replacement);
        try {
            if (record.getParent() != null) {
                Files.createDirectories(record.getParent());
            }
            try (var out = Files.newBufferedWriter(record, StandardCharsets.UTF_8)) {
                properties.store(out, "install-service.ps1 -ReplaceService: the service's binary path before and after");
            }
        } catch (IOException e) {
            throw new RegistrationException("cannot write " + record + ": " + e.getMessage(), 0);
        }
    }

    private static Properties readRecord(Path record, String name) {
        Properties properties = new Properties();
        try (var in = Files.newBufferedReader(record, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException e) {
            throw new RegistrationException("no replacement of " + name + " is recorded in " + record + " ("
                    + e.getMessage() + ")", 0);
        }
        if (!name.equalsIgnoreCase(properties.getProperty("service", ""))
                || properties.getProperty("previous") == null || properties.getProperty("replacement") == null) {
            throw new RegistrationException(record + " is not the record of replacing service " + name, 0);
        }
        return properties;
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

    /**
     * Polls until the SCM no longer knows {@code name}: the old service is really gone, and the name is free.
     *
     * @throws RegistrationException with {@code ERROR_SERVICE_MARKED_FOR_DELETE} after {@link #deleteTimeout}
     */
    private void awaitDeleted(ServiceConfigApi.Handle manager, String name) {
        long waits = Math.max(1, deleteTimeout.toMillis() / pollInterval.toMillis());
        for (long i = 0; i <= waits; i++) {
            Optional<ServiceConfigApi.Handle> still = api.openService(manager, name);
            if (still.isEmpty()) {
                return;
            }
            api.close(still.get());
            if (i == waits) {
                break;
            }
            try {
                sleeper.sleep(pollInterval);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new RegistrationException("interrupted while waiting for service " + name + " to be deleted",
                        RegistrationException.SERVICE_MARKED_FOR_DELETE);
            }
        }
        throw markedForDeletion(name);
    }

    private ServiceConfigApi.Handle create(ServiceConfigApi.Handle manager, ServiceDefinition definition) {
        try {
            return api.createService(manager, definition.name(), definition.displayName(),
                    definition.startType().win32(), definition.commandLine(), definition.dependencies());
        } catch (RegistrationException e) {
            if (e.win32Error() == RegistrationException.SERVICE_MARKED_FOR_DELETE) {
                throw markedForDeletion(definition.name());
            }
            throw e;
        }
    }

    private RegistrationException markedForDeletion(String name) {
        return new RegistrationException("service " + name + " is marked for deletion but still exists after "
                + deleteTimeout.toSeconds() + " s: close the Services console (services.msc), Event Viewer and any "
                + "other program that has it open (or end its old process), then run the installer again",
                RegistrationException.SERVICE_MARKED_FOR_DELETE);
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
