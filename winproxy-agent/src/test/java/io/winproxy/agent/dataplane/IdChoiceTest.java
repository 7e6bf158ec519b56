package io.winproxy.agent.dataplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.winproxy.hns.HResults;
import io.winproxy.hns.HnsException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** When {@link IdChoice} concludes that HNS refuses caller-chosen IDs, and what it keeps. */
class IdChoiceTest {
    private static final String CHOSEN = "0000a11c-0000-4000-8000-000000000001";
    private static final String HNS_ID = "12345678-9abc-4def-8123-456789abcdef";

    @TempDir
    Path dir;

    private final List<String> sent = new ArrayList<>();
    private int writes;

    private IdChoice choice() {
        return new IdChoice(() -> CHOSEN, dir.resolve(IdChoice.FILE_NAME));
    }

    /** A create that fails with {@code withId} when sent an ID and with {@code withoutId} (0: succeeds) without. */
    private Function<String, String> hns(int withId, int withoutId) {
        return id -> {
            sent.add(String.valueOf(id));
            int code = id == null ? withoutId : withId;
            if (code != 0) {
                throw new HnsException(code, "HcnCreateLoadBalancer", "");
            }
            return id == null ? HNS_ID : id;
        };
    }

    private String create(IdChoice ids, Function<String, String> call) {
        return ids.create(IdChoice.Kind.LOAD_BALANCER, "10.96.0.10:80/TCP", CHOSEN, call, id -> true, () -> writes++);
    }

    @ParameterizedTest
    @ValueSource(ints = {HResults.E_INVALIDARG, HResults.HCN_E_INVALID_JSON, HResults.HCN_E_GUID_CONVERSION_FAILURE})
    void aRefusalProvedByTheRetryWithoutAnIdSwitchesChosenIdsOffAndSaysWhichCodeAndObjectShowedIt(int code) {
        IdChoice ids = choice();
        assertThat(create(ids, hns(code, 0))).isEqualTo(HNS_ID);

        assertThat(sent).containsExactly(CHOSEN, "null");
        assertThat(writes).isEqualTo(2);
        assertThat(ids.chosen()).isFalse();
        assertThat(IdChoice.read(dir.resolve(IdChoice.FILE_NAME))).get().asString()
                .contains(HResults.describe(code)).contains("a load balancer (10.96.0.10:80/TCP)")
                .contains("created as " + CHOSEN);
        assertThat(new IdChoice(() -> CHOSEN, dir.resolve(IdChoice.FILE_NAME)).chosen()).as("after a restart")
                .isFalse();
    }

    @Test
    void anInvalidArgWhoseRetryFailsTooIsTheDocumentsFaultAndTeachesNothing() {
        IdChoice ids = choice();
        assertThatThrownBy(() -> create(ids, hns(HResults.E_INVALIDARG, HResults.E_INVALIDARG)))
                .isInstanceOfSatisfying(DocumentRefusedException.class, e -> {
                    assertThat(e.hresult()).isEqualTo(HResults.E_INVALIDARG);
                    assertThat(e.firstHresult()).isEqualTo(HResults.E_INVALIDARG);
                    assertThat(e.getMessage()).contains("refused the load balancer document for 10.96.0.10:80/TCP "
                            + "itself");
                });
        assertThat(ids.chosen()).isTrue();
        assertThat(dir.resolve(IdChoice.FILE_NAME)).doesNotExist();
        // The next create still sends winproxy's ID.
        sent.clear();
        assertThat(create(ids, hns(0, 0))).isEqualTo(CHOSEN);
        assertThat(sent).containsExactly(CHOSEN);
    }

    @Test
    void otherCodesAreNotRetried() {
        IdChoice ids = choice();
        assertThatThrownBy(() -> create(ids, hns(HResults.HCN_E_PORT_ALREADY_EXISTS, 0)))
                .isExactlyInstanceOf(HnsException.class);
        assertThat(sent).containsExactly(CHOSEN);
        assertThat(ids.chosen()).isTrue();
    }

    @Test
    void aSingleEFailIsNotProofButTwoCreatesInARowAre() {
        IdChoice ids = choice();
        assertThat(create(ids, hns(HResults.E_FAIL, 0))).isEqualTo(HNS_ID);
        assertThat(ids.chosen()).as("one E_FAIL may be transient").isTrue();
        assertThat(dir.resolve(IdChoice.FILE_NAME)).doesNotExist();
        // A create with the ID that works clears the suspicion.
        assertThat(create(ids, hns(0, 0))).isEqualTo(CHOSEN);
        create(ids, hns(HResults.E_FAIL, 0));
        assertThat(ids.chosen()).isTrue();

        create(ids, hns(HResults.E_FAIL, 0));
        assertThat(ids.chosen()).isFalse();
        assertThat(IdChoice.read(dir.resolve(IdChoice.FILE_NAME))).get().asString().contains("0x80004005 E_FAIL");
    }

    @Test
    void aReadBackThatFailsWithAnUnknownCodeConcludesNothing() {
        IdChoice ids = choice();
        String got = ids.create(IdChoice.Kind.ENDPOINT, "10.244.2.5", CHOSEN, hns(0, 0), id -> {
            throw new HnsException(0x803B00FF, "HcnOpenEndpoint", "");
        }, () -> writes++);
        assertThat(got).isEqualTo(CHOSEN);
        assertThat(ids.chosen()).isTrue();
        assertThat(ids.mustVerify(IdChoice.Kind.ENDPOINT)).as("the next create reads back again").isTrue();
    }
}
