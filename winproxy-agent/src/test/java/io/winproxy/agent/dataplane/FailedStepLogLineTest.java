package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.winproxy.agent.logging.JsonLineLayout;
import io.winproxy.agent.logging.KlogTextLayout;
import io.winproxy.agent.logging.LibraryLoggers;
import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsErrors;
import io.winproxy.hns.emulator.HnsCall;
import io.winproxy.hns.emulator.HnsEmulator;
import io.winproxy.hns.emulator.HnsObjectKind;
import io.winproxy.hns.explain.Explanation;
import io.winproxy.hns.explain.HnsExplainer;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Every HRESULT of the decoder table through the log line the agent really writes when an HNS step fails (a create
 * refused by the emulator with that code), in klog's text and JSON formats, and back through {@code hns explain}: the
 * line carries {@code hresult="0x..."} and the decoded cause, and the explanation gives the same name, cause and fix.
 */
class FailedStepLogLineTest {
    private final Logger executionLogger = (Logger) LoggerFactory.getLogger(Execution.class);
    private final ListAppender<ILoggingEvent> captured = new ListAppender<>();

    static List<Integer> codes() {
        return HResults.failureCodes();
    }

    @BeforeEach
    void capture() {
        captured.start();
        executionLogger.addAppender(captured);
    }

    @AfterEach
    void release() {
        executionLogger.detachAppender(captured);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("codes")
    void aFailedCreateIsLoggedWithItsDecodedHresultAndHnsExplainDecodesTheLine(int code) {
        HnsEmulator hns = HnsEmulator.inMemory();
        DataplaneWorld.overlayHost(hns);
        HnsDataplane dp = new HnsDataplane(hns, "overlay", OwnershipJournal.inMemory(), DataplaneWorld.SYNC_PERIOD,
                System::nanoTime);
        dp.observe();
        hns.faults().failNext(HnsCall.CREATE, HnsObjectKind.LOAD_BALANCER, 5, code);
        ApplyResult result = dp.apply(new Plan(List.of(new PlanStep.CreateLoadBalancer(DataplaneWorld.dns())),
                List.of()));
        assertThat(result.failures()).hasSize(1);

        ILoggingEvent line = captured.list.stream().filter(e -> e.getMessage().equals("HNS step failed; will retry"))
                .findFirst().orElseThrow();
        HnsErrors.Diagnosis d = HnsErrors.diagnose(code);
        String text = new KlogTextLayout(ZoneId.of("UTC"), 42, new LibraryLoggers(0, Map.of())).doLayout(line);
        assertThat(text).contains("hresult=\"" + d.hex() + "\"", "name=\"" + d.name() + "\"");
        String json = new JsonLineLayout(new LibraryLoggers(0, Map.of())).doLayout(line);
        for (String logged : List.of(text, json)) {
            Explanation e = new HnsExplainer().explain(logged);
            assertThat(e.json().get("hresult").asText()).as(logged).isEqualTo(HResults.hex(code));
            assertThat(e.json().get("name").asText()).isEqualTo(d.name());
            assertThat(e.json().get("cause").asText()).isEqualTo(d.cause());
            assertThat(e.json().get("fix").asText()).isEqualTo(d.fix());
        }
    }
}
