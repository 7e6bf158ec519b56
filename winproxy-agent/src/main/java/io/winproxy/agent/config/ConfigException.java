package io.winproxy.agent.config;

import java.util.List;

/**
 * Invalid flags or configuration. {@link #getMessage()} is a single line that names every offending flag
 * ({@code --iptables-sync-period}) or file field ({@code KubeProxyConfiguration.winkernel.sourceVip}), joined with
 * {@code "; "}; {@link #errors()} holds the individual messages. The CLI prints the message and exits with code 2.
 */
public final class ConfigException extends Exception {
    private static final long serialVersionUID = 1L;

    private final List<String> errors;

    public ConfigException(List<String> errors) {
        super(String.join("; ", errors.stream().map(ConfigException::oneLine).toList()));
        if (errors.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one error");
        }
        this.errors = List.copyOf(errors.stream().map(ConfigException::oneLine).toList());
    }

    public ConfigException(String error) {
        this(List.of(error));
    }

    /** The individual error messages, each naming its flag or field, in the order they were found. */
    public List<String> errors() {
        return errors;
    }

    private static String oneLine(String message) {
        return message.replace("\r\n", " ").replace('\n', ' ').replace('\r', ' ');
    }
}
