package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import java.util.List;
import java.util.Map;

/**
 * The loggers of the HTTP and Kubernetes client libraries (fabric8, the JDK HTTP client, OkHttp, Vert.x, Netty).
 * Below {@value #DETAIL_VERBOSITY} (kube-proxy's "request-level detail") they log at most one line per event: only
 * warnings and errors, without stack traces, with line breaks folded; from {@value #DETAIL_VERBOSITY} up they log
 * debug (9: trace) with full stack traces. winproxy reports API outages in lines of its own. Immutable.
 */
public final class LibraryLoggers {

    /** The verbosity from which library loggers show debug output and stack traces. */
    public static final int DETAIL_VERBOSITY = 6;

    /** Logger name prefixes of the libraries. */
    public static final List<String> PREFIXES = List.of("io.fabric8", "io.vertx", "io.netty",
            "jdk.internal.httpclient", "jdk.httpclient", "okhttp3", "okio");

    private final int verbosity;
    private final Map<String, Integer> vmodule;

    /**
     * @param verbosity {@code --v}
     * @param vmodule   the {@code --vmodule} entries; an entry for a library prefix (e.g. {@code io.fabric8=6})
     *                  overrides {@code --v} for the loggers under it
     */
    public LibraryLoggers(int verbosity, Map<String, Integer> vmodule) {
        this.verbosity = verbosity;
        this.vmodule = Map.copyOf(vmodule);
    }

    /** Whether the logger belongs to one of the libraries. */
    public static boolean isLibrary(String loggerName) {
        return loggerName != null && PREFIXES.stream().anyMatch(p -> loggerName.equals(p)
                || loggerName.startsWith(p + "."));
    }

    /** The level of the library loggers at a verbosity: WARN below 6, DEBUG from 6, TRACE from 9. */
    public static Level level(int verbosity) {
        if (verbosity >= 9) {
            return Level.TRACE;
        }
        return verbosity >= DETAIL_VERBOSITY ? Level.DEBUG : Level.WARN;
    }

    /** The verbosity from which winproxy's own errors carry their stack trace (escaped, inside {@code err}). */
    public static final int TRACE_VERBOSITY = 4;

    /**
     * Whether an event's {@code err} carries the stack trace after its summary: for the libraries from
     * {@value #DETAIL_VERBOSITY} (or their {@code --vmodule} entry), for everything else from
     * {@value #TRACE_VERBOSITY}. The layouts escape it: a record is one line either way.
     */
    public boolean stackTraces(String loggerName) {
        return isLibrary(loggerName) ? !oneLine(loggerName) : verbosity >= TRACE_VERBOSITY;
    }

    /** Whether events of this logger are cut to one line without a stack trace. */
    public boolean oneLine(String loggerName) {
        if (!isLibrary(loggerName)) {
            return false;
        }
        int effective = verbosity;
        int longest = -1;
        for (Map.Entry<String, Integer> e : vmodule.entrySet()) {
            String p = e.getKey();
            if ((loggerName.equals(p) || loggerName.startsWith(p + ".")) && p.length() > longest) {
                longest = p.length();
                effective = e.getValue();
            }
        }
        return effective < DETAIL_VERBOSITY;
    }
}
