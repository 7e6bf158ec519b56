package io.winproxy.agent.kube;

import io.winproxy.agent.logging.KlogRefs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the mappers report a malformed part they dropped. Each warning names its object ({@code "EndpointSlice
 * ns/name: detail"}) and is logged as one structured line, {@code "Detail" endpointSlice="ns/name"}. The same
 * warning repeated (an informer delivers every update of a broken object) is logged once per
 * {@link #REPEAT_WINDOW}; the next line says how many were held back ({@code repeated=N}). Thread-safe.
 */
final class MappingWarnings implements Consumer<String> {
    private static final Logger logger = LoggerFactory.getLogger(MappingWarnings.class);

    /** How long an identical warning is held back after it was logged. */
    static final Duration REPEAT_WINDOW = Duration.ofMinutes(10);

    /** How many distinct warnings are remembered (the oldest are forgotten first). */
    static final int REMEMBERED = 1024;

    private static final Pattern OBJECT = Pattern.compile("(Service|EndpointSlice|Node) (\\S+): (.*)", Pattern.DOTALL);

    private static final MappingWarnings LOG = new MappingWarnings(Clock.systemUTC());

    private final Clock clock;
    private final Map<String, Seen> seen = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Seen> eldest) {
            return size() > REMEMBERED;
        }
    };

    private static final class Seen {
        Instant logged;
        int heldBack;
    }

    MappingWarnings(Clock clock) {
        this.clock = clock;
    }

    /** The default sink: the log, repeats held back. */
    static Consumer<String> log() {
        return LOG;
    }

    @Override
    public void accept(String message) {
        int repeated;
        synchronized (seen) {
            Instant now = clock.instant();
            Seen s = seen.computeIfAbsent(message, m -> new Seen());
            if (s.logged != null && now.isBefore(s.logged.plus(REPEAT_WINDOW))) {
                s.heldBack++;
                return;
            }
            repeated = s.heldBack;
            s.logged = now;
            s.heldBack = 0;
        }
        Matcher m = OBJECT.matcher(message);
        var line = logger.atWarn();
        if (m.matches()) {
            line = line.setMessage(KlogRefs.capitalize(m.group(3))).addKeyValue(KlogRefs.key(m.group(1)), m.group(2));
        } else {
            line = line.setMessage(KlogRefs.capitalize(message));
        }
        if (repeated > 0) {
            line = line.addKeyValue("repeated", repeated);
        }
        line.log();
    }
}
