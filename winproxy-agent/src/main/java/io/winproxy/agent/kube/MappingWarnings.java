package io.winproxy.agent.kube;

import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Where the mappers report a malformed part they dropped; each message names the object. */
final class MappingWarnings {
    private static final Logger logger = LoggerFactory.getLogger(MappingWarnings.class);

    private MappingWarnings() {
    }

    /** The default sink: a WARN log line. */
    static Consumer<String> log() {
        return message -> logger.warn("{}", message);
    }
}
