package io.winproxy.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.winproxy.agent.health.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** Mapper warnings: one per object and problem, structured, and repeats held back with a count. */
class MappingWarningsTest {
    private final Logger logger = (Logger) LoggerFactory.getLogger(MappingWarnings.class);
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final FakeClock clock = new FakeClock(Instant.parse("2026-11-26T10:00:00Z"), ZoneOffset.UTC);

    private final MappingWarnings warnings = new MappingWarnings(clock);

    @BeforeEach
    void attach() {
        log.start();
        logger.addAppender(log);
    }

    @AfterEach
    void detach() {
        logger.detachAppender(log);
    }

    private List<String> lines() {
        List<String> out = new ArrayList<>();
        log.list.forEach(e -> out.add(e.getFormattedMessage() + KlogValuesForTests.keyValues(e)));
        return out;
    }

    @Test
    void aWarningIsOneStructuredLineNamingItsObject() {
        warnings.accept("EndpointSlice default/web-abc: endpoints[3] has no addresses; dropped");
        assertThat(lines()).containsExactly(
                "Endpoints[3] has no addresses; dropped endpointSlice=\"default/web-abc\"");
    }

    @Test
    void theSameWarningRepeatedByEveryUpdateIsHeldBackAndCountedOnTheNextLine() {
        for (int i = 0; i < 50; i++) {
            warnings.accept("Service default/web: no spec; mapped with no ports");
            clock.step(Duration.ofSeconds(1));
        }
        assertThat(lines()).containsExactly("No spec; mapped with no ports service=\"default/web\"");
        clock.step(MappingWarnings.REPEAT_WINDOW);
        warnings.accept("Service default/web: no spec; mapped with no ports");
        assertThat(lines()).hasSize(2).last().isEqualTo(
                "No spec; mapped with no ports service=\"default/web\" repeated=49");
    }

    @Test
    void aSliceWhoseEndpointsAllLackAddressesCostsOneWarningWithTheirCount() {
        List<String> seen = new ArrayList<>();
        EndpointSliceBuilder slice = new EndpointSliceBuilder().withNewMetadata().withNamespace("default")
                .withName("web-abc").withLabels(Map.of("kubernetes.io/service-name", "web")).endMetadata()
                .withAddressType("IPv4");
        for (int i = 0; i < 480; i++) {
            slice.addNewEndpoint().withNodeName("n").endEndpoint();
        }
        new EndpointSliceMapper(seen::add).map(slice.build());
        assertThat(seen).containsExactly("EndpointSlice default/web-abc: 480 endpoints have no addresses"
                + " (endpoints[0, 1, 2, 3, 4, ...]); dropped");
    }
}
