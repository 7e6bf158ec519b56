package io.winproxy.agent.winsvc;

import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies {@code --windows-priorityclass} to the current process, as upstream kube-proxy does at start-up.
 * Windows may grant less than asked (REALTIME becomes HIGH without {@code SeIncreaseBasePriorityPrivilege}), so
 * the class in effect is read back and returned, with a warning when it differs.
 */
public final class ProcessPriority {
    private static final Logger logger = LoggerFactory.getLogger(ProcessPriority.class);

    private final ProcessPriorityApi api;

    public ProcessPriority(ProcessPriorityApi api) {
        this.api = Objects.requireNonNull(api, "api");
    }

    /** For the real process (jna-platform {@code Kernel32}); loads the native library. */
    public static ProcessPriority forWindows() {
        return new ProcessPriority(new JnaProcessPriorityApi());
    }

    /** The priority class the process has now. */
    public PriorityClass current() {
        return PriorityClass.fromWin32(api.getPriorityClass());
    }

    /**
     * Sets the priority class of the current process; does nothing when it already has it.
     *
     * @return the class in effect afterwards
     * @throws WindowsServiceException when Windows refuses the change
     */
    public PriorityClass apply(PriorityClass wanted) {
        Objects.requireNonNull(wanted, "wanted");
        PriorityClass before = current();
        if (before == wanted) {
            logger.atDebug().setMessage("Process priority class is already set")
                    .addKeyValue("priorityClass", wanted).log();
            return before;
        }
        api.setPriorityClass(wanted.win32());
        PriorityClass after = current();
        if (after != wanted) {
            logger.atWarn().setMessage("Windows granted another priority class than --windows-priorityclass")
                    .addKeyValue("requested", wanted).addKeyValue("granted", after).log();
        } else {
            logger.atInfo().setMessage("Process priority class set").addKeyValue("priorityClass", after)
                    .addKeyValue("previous", before).log();
        }
        return after;
    }
}
