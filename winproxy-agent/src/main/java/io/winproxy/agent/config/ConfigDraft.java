package io.winproxy.agent.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The configuration being resolved: every v1alpha1 field by path (starting from the defaults), where each value
 * came from (a flag or the file), and the errors found so far. Error messages name the flag when a flag set the
 * value ({@code invalid value for --source-vip: "1.2.3": must be a valid IP}) and the file field otherwise
 * ({@code KubeProxyConfiguration.winkernel.sourceVip: Invalid value: "1.2.3": must be a valid IP}).
 * Single-threaded; lives for one {@link ConfigResolver#resolve} call.
 */
final class ConfigDraft {
    private final Map<String, Object> values = ConfigSchema.defaults();
    private final Map<String, String> flagOf = new HashMap<>();
    private final List<String> errors = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    void set(String path, Object value) {
        requireField(path);
        values.put(path, value);
        flagOf.remove(path);
    }

    void setFromFlag(String path, Object value, String flag) {
        requireField(path);
        values.put(path, value);
        flagOf.put(path, flag);
    }

    Object get(String path) {
        requireField(path);
        return values.get(path);
    }

    String string(String path) {
        return (String) get(path);
    }

    boolean bool(String path) {
        return (Boolean) get(path);
    }

    int integer(String path) {
        return (Integer) get(path);
    }

    float decimal(String path) {
        return (Float) get(path);
    }

    Duration duration(String path) {
        return (Duration) get(path);
    }

    @SuppressWarnings("unchecked")
    List<String> list(String path) {
        return (List<String>) get(path);
    }

    @SuppressWarnings("unchecked")
    Map<String, Boolean> boolMap(String path) {
        return (Map<String, Boolean>) get(path);
    }

    /** The name of the value's source: {@code --flag}, or {@code KubeProxyConfiguration.<path>}. */
    String name(String path) {
        String flag = flagOf.get(path);
        return flag != null ? flag : "KubeProxyConfiguration." + path;
    }

    boolean fromFlag(String path) {
        return flagOf.containsKey(path);
    }

    /** Records an invalid value of a field, worded for its source. */
    void invalid(String path, Object value, String detail) {
        String shown = render(value);
        String flag = flagOf.get(path);
        if (flag != null) {
            errors.add("invalid value for " + flag + ": " + shown + ": " + detail);
        } else {
            errors.add("KubeProxyConfiguration." + path + ": Invalid value: " + shown + ": " + detail);
        }
    }

    /** Records an invalid value of a flag that has no file field. */
    void invalidFlag(String flag, String value, String detail) {
        errors.add("invalid value for " + flag + ": " + render(value) + ": " + detail);
    }

    void error(String message) {
        errors.add(message);
    }

    void warn(String message) {
        warnings.add(message);
    }

    List<String> errors() {
        return errors;
    }

    List<String> warnings() {
        return warnings;
    }

    static String render(Object value) {
        if (value instanceof Duration d) {
            return "\"" + GoDuration.format(d) + "\"";
        }
        if (value instanceof String s) {
            return "\"" + s + "\"";
        }
        return String.valueOf(value);
    }

    private static void requireField(String path) {
        if (!ConfigSchema.FIELDS.containsKey(path)) {
            throw new IllegalArgumentException("not a KubeProxyConfiguration field: " + path);
        }
    }
}
