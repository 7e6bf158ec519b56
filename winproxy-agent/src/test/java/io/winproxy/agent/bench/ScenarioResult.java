package io.winproxy.agent.bench;

import java.util.List;
import java.util.Map;

/**
 * What one measured sync cost.
 *
 * @param callsByExport native calls by {@code computenetwork.dll} export, from the emulator's call journal
 * @param reads         enumerate, open, query and close calls
 * @param writes        create, modify and delete calls
 * @param created       objects created (create calls)
 * @param wallMillis    the sync's wall time
 * @param hnsMillis     the part of it spent inside HNS calls (the emulator's own cost)
 * @param heapAfterGc   heap in use after a full GC, with the agent still running (bytes)
 * @param notes         further measurements of the scenario, printed in order ("local endpoint reads" -> "1,000")
 * @param listener      how the client's {@code NativeCallListener} report compares with the journal
 */
record ScenarioResult(int services, EchoPreset profile, String scenario, Map<String, Integer> callsByExport,
                      int total, int reads, int writes, int created, long wallMillis, long hnsMillis, long heapAfterGc,
                      Map<String, String> notes, String listener, List<Target> targets) {

    boolean pass() {
        return targets.stream().allMatch(Target::pass);
    }
}
