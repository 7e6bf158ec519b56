package io.winproxy.installer;

import java.util.List;
import java.util.Optional;

/**
 * Whether a service command line logs anywhere. A service has no console and the SCM discards its standard error,
 * so without {@code --log-file} or {@code --log-dir} (klog's flags, which winproxy honours as kube-proxy does) the
 * service logs nothing: the same as upstream kube-proxy registered the same way, but worth saying at install time.
 */
final class LogDestination {
    static final String WARNING = "warning: the service's command line has no --log-file or --log-dir: a service's"
            + " standard error goes nowhere, so it will log nothing (add --logtostderr=false --log-file=PATH)";

    private LogDestination() {
    }

    /** The one-line warning for {@code command} (the service's program and arguments), or empty. */
    static Optional<String> warning(List<String> command) {
        for (String arg : command) {
            if (arg.equals("--log-file") || arg.startsWith("--log-file=") || arg.equals("--log-dir")
                    || arg.startsWith("--log-dir=") || arg.equals("-log-file") || arg.startsWith("-log-file=")) {
                return Optional.empty();
            }
        }
        return Optional.of(WARNING);
    }
}
