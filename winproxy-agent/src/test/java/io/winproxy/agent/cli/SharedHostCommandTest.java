package io.winproxy.agent.cli;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * The base of the tests of {@code hns ...} commands run as an operator runs them beside a process (here: an emulator
 * instance) that uses the same state file: each test gets a fresh {@link SharedEmulatedHost} in a temporary directory.
 */
abstract class SharedHostCommandTest {
    @TempDir
    Path dir;

    SharedEmulatedHost host;

    @BeforeEach
    void anEmulatedHostUsedByAnotherProcess() {
        host = SharedEmulatedHost.in(dir);
    }
}
