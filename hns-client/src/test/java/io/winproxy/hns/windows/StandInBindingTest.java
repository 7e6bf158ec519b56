package io.winproxy.hns.windows;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.winproxy.hns.model.HcnJson;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * What the tier-2 binding tests share: a fresh stand-in library per test, the binding under test reporting to a
 * {@link RecordingListener}, and, after each test, the check that every string and handle the stand-in returned was
 * released.
 */
@EnabledOnOs(OS.LINUX)
abstract class StandInBindingTest<T extends NativeBinding> {
    StandIn standIn;
    T calls;
    RecordingListener listener;

    /** The binding under test over the stand-in's exports. */
    abstract T bind(StandIn library, ObjectMapper mapper);

    @BeforeEach
    void setUp() {
        standIn = StandIn.fresh();
        calls = bind(standIn, HcnJson.newMapper());
        listener = new RecordingListener();
        calls.setNativeCallListener(listener);
    }

    @AfterEach
    void everyStringAndHandleIsReleased() {
        standIn.assertEverythingReleased();
    }
}
