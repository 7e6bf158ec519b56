package io.winproxy.agent.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Issue 17.3: one winproxy per state directory, enforced by the operating system's file lock. */
class InstanceLockTest {

    @TempDir
    Path dir;

    @Test
    void aSecondProcessIsRefusedNamingTheHolderAndTheLockIsFreeOnceTheHolderIsKilled() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process holder = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                LockHolder.class.getName(), dir.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                    StandardCharsets.UTF_8));
            String line;
            do {
                line = out.readLine();
            } while (line != null && !line.startsWith("locked "));
            assertThat(line).as("the holder took the lock").isEqualTo("locked " + holder.pid());

            assertThatThrownBy(() -> InstanceLock.acquire(dir))
                    .isInstanceOf(InstanceLockedException.class)
                    .hasMessageStartingWith("the state directory " + dir + " is in use by another winproxy (pid "
                            + holder.pid() + ", started ")
                    .hasMessageNotContaining("\n");

            holder.destroyForcibly();
            assertThat(holder.waitFor(20, TimeUnit.SECONDS)).isTrue();
            try (InstanceLock lock = InstanceLock.acquire(dir)) {
                assertThat(Files.readString(lock.file()))
                        .startsWith("pid=" + ProcessHandle.current().pid() + " started=");
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void readsAndTrialsByTheHoldingProcessKeepTheLockFromASecondProcess() throws Exception {
        try (InstanceLock held = InstanceLock.acquire(dir, InstanceLock.AGENT)) {
            // what the agent's own start-up check and a refused second acquire in this process do: on POSIX a close
            // of any descriptor of the file would release this process's lock
            assertThat(InstanceLock.isFree(dir)).isFalse();
            assertThat(InstanceLock.holderRole(dir)).isEqualTo(InstanceLock.AGENT);
            assertThat(InstanceLock.describeHolder(dir)).startsWith("pid " + ProcessHandle.current().pid() + ", ");
            assertThatThrownBy(() -> InstanceLock.acquire(dir)).isInstanceOf(InstanceLockedException.class);

            Path java = Path.of(System.getProperty("java.home"), "bin", "java");
            Process second = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                    LockHolder.class.getName(), dir.toString()).redirectErrorStream(true).start();
            try {
                assertThat(second.waitFor(30, TimeUnit.SECONDS)).as("the second process is refused at once").isTrue();
                String out = new String(second.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertThat(second.exitValue()).as(out).isNotZero();
                assertThat(out).contains("is in use by another winproxy (pid " + ProcessHandle.current().pid());
            } finally {
                second.destroyForcibly();
            }
        }
        assertThat(InstanceLock.isFree(dir)).isTrue();
    }

    @Test
    void aSecondLockInTheSameProcessIsRefusedAndCloseReleasesIt() {
        try (InstanceLock first = InstanceLock.acquire(dir)) {
            assertThatThrownBy(() -> InstanceLock.acquire(dir)).isInstanceOf(InstanceLockedException.class)
                    .hasMessageContaining("(pid " + ProcessHandle.current().pid() + ", started ");
        }
        InstanceLock.acquire(dir).close();
    }

    @Test
    void anUnreadableHolderIsDescribedInsteadOfNamed() throws Exception {
        Path file = dir.resolve(InstanceLock.FILE_NAME);
        Files.write(file, List.of("garbage"));
        assertThat(InstanceLock.holder(file)).startsWith("holder unknown");
    }

    @Test
    void theLockFileIsOwnerOnlyWherePosixModesExist() throws Exception {
        try (InstanceLock lock = InstanceLock.acquire(dir)) {
            if (SecureFiles.isPosix(dir)) {
                assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        Files.getPosixFilePermissions(lock.file()))).isEqualTo("rw-------");
            }
        }
    }
}
