package io.winproxy.agent.state;

import java.nio.file.Path;

/** A second process for {@link InstanceLockTest}: takes the lock of {@code args[0]}, says so, waits for stdin. */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (InstanceLock lock = InstanceLock.acquire(Path.of(args[0]))) {
            System.out.println("locked " + ProcessHandle.current().pid());
            System.out.flush();
            System.in.read();
        }
    }
}
