package io.winproxy.agent.kube;

import ch.qos.logback.classic.spi.ILoggingEvent;
import io.winproxy.agent.logging.KlogValues;
import org.slf4j.event.KeyValuePair;

/** An event's key/values as the klog text layout prints them after the message ({@code " key=\"value\" n=3"}). */
final class KlogValuesForTests {
    private KlogValuesForTests() {
    }

    static String keyValues(ILoggingEvent event) {
        StringBuilder out = new StringBuilder();
        if (event.getKeyValuePairs() != null) {
            for (KeyValuePair pair : event.getKeyValuePairs()) {
                out.append(' ');
                KlogValues.key(out, pair.key);
                out.append('=');
                KlogValues.value(out, pair.value);
            }
        }
        return out.toString();
    }
}
