package io.winproxy.installer;

import java.util.List;
import java.util.Objects;

/**
 * Everything the service is registered with. The account is always LocalSystem, as in every observed kube-proxy
 * deployment; the type is {@code SERVICE_WIN32_OWN_PROCESS} (the JVM is the service).
 *
 * @param commandLine  the full command line (binary path and arguments, quoted as {@link CommandLine#join} does)
 * @param dependencies services that must run first, e.g. {@code hns}
 */
public record ServiceDefinition(String name, String displayName, String description, String commandLine,
        StartType startType, List<String> dependencies, RecoveryActions recovery) {

    public ServiceDefinition {
        if (name == null || name.isBlank() || name.length() > 256 || name.contains("/") || name.contains("\\")) {
            throw new IllegalArgumentException("--name: \"" + name
                    + "\" is not a valid service name (1-256 characters, no / or \\)");
        }
        if (commandLine == null || commandLine.isBlank()) {
            throw new IllegalArgumentException("the service command line is empty: give it after --");
        }
        displayName = displayName == null || displayName.isBlank() ? name : displayName;
        description = description == null ? "" : description;
        startType = Objects.requireNonNull(startType, "startType");
        dependencies = List.copyOf(dependencies);
        for (String dependency : dependencies) {
            if (dependency.isBlank() || dependency.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("--depends-on: \"" + dependency + "\" is not a service name");
            }
        }
        recovery = Objects.requireNonNull(recovery, "recovery");
    }
}
