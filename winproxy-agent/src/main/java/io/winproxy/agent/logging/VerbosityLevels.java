package io.winproxy.agent.logging;

import ch.qos.logback.classic.Level;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;

/**
 * Maps klog verbosity ({@code --v}, {@code --vmodule}) onto logback levels. Stateless.
 *
 * <table>
 *   <caption>--v to logback levels</caption>
 *   <tr><th>--v</th><th>io.winproxy</th><th>client libraries ({@link LibraryLoggers#PREFIXES})</th>
 *       <th>everything else</th></tr>
 *   <tr><td>0-1</td><td>INFO</td><td>WARN, one line per event</td><td>INFO</td></tr>
 *   <tr><td>2-3</td><td>DEBUG</td><td>WARN, one line per event</td><td>INFO</td></tr>
 *   <tr><td>4-5</td><td>TRACE</td><td>WARN, one line per event</td><td>INFO</td></tr>
 *   <tr><td>6-8</td><td>TRACE</td><td>DEBUG, with stack traces</td><td>INFO</td></tr>
 *   <tr><td>9+</td><td>TRACE</td><td>TRACE, with stack traces</td><td>INFO</td></tr>
 * </table>
 * ("One line per event" is applied by the layouts, see {@link LibraryLoggers}.)
 * fabric8's informer reflector ({@value #INFORMER_REFLECTOR}) logs every failed list or watch as a WARN with a stack
 * trace; winproxy reports those failures itself in one line (rate-limited), so the reflector is kept at ERROR
 * below --v=6 and follows io.fabric8 from 6 up.
 * A {@code --vmodule} entry {@code logger=N} sets that logger (and its children) to the io.winproxy level of N.
 */
public final class VerbosityLevels {
    public static final String WINPROXY = "io.winproxy";
    public static final String KUBERNETES_CLIENT = "io.fabric8";
    public static final String INFORMER_REFLECTOR = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";

    private VerbosityLevels() {
    }

    /** The level of winproxy's own loggers at a verbosity. */
    public static Level winproxyLevel(int verbosity) {
        if (verbosity >= 4) {
            return Level.TRACE;
        }
        return verbosity >= 2 ? Level.DEBUG : Level.INFO;
    }

    /**
     * Logger name ({@link Logger#ROOT_LOGGER_NAME} for the root) to level, in the order to apply them: root,
     * io.winproxy, the client libraries, the informer reflector, then the vmodule entries.
     *
     * @throws IllegalArgumentException for a malformed vmodule
     */
    public static Map<String, Level> levels(int verbosity, String vmodule) {
        Map<String, Level> out = new LinkedHashMap<>();
        out.put(Logger.ROOT_LOGGER_NAME, Level.INFO);
        out.put(WINPROXY, winproxyLevel(verbosity));
        LibraryLoggers.PREFIXES.forEach(prefix -> out.put(prefix, LibraryLoggers.level(verbosity)));
        out.put(INFORMER_REFLECTOR, verbosity >= LibraryLoggers.DETAIL_VERBOSITY ? LibraryLoggers.level(verbosity)
                : Level.ERROR);
        Vmodule.entries(vmodule).forEach((pattern, level) -> out.put(pattern, winproxyLevel(level)));
        return Collections.unmodifiableMap(out);
    }
}
