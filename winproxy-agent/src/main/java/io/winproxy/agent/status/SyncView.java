package io.winproxy.agent.status;

import io.winproxy.agent.dataplane.HnsDataplane;
import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.plan.PlanStep;
import io.winproxy.policy.tracking.ProxyState;
import java.time.Instant;
import java.util.List;
import java.util.function.Function;

/**
 * What a status computation reads, all of it consistent with one moment: in the agent, read on the sync thread
 * between syncs ({@link StatusSource}); offline, from one evaluation of the proxy's pipeline.
 *
 * @param source       {@code agent} (the running agent answered) or {@code computed} (computed without an agent)
 * @param nodeName     this node
 * @param synced       whether a sync has completed (the agent) or the evaluation ran (offline)
 * @param state        the trackers' state: service ports and endpoints
 * @param desired      the desired state of the last sync, or null before one
 * @param families     the IP families this node serves
 * @param journal      the ownership journal (the HNS IDs winproxy owns)
 * @param pendingSteps the steps that still have to run (offline: the plan; the agent: none, its book knows)
 * @param book         what the agent remembers of each port; null offline
 * @param backoff      the backoff of a step's object; null offline
 * @param at           when the view was taken
 */
public record SyncView(String source, String nodeName, boolean synced, ProxyState state, DesiredState desired,
                       List<IpFamily> families, OwnershipJournal journal, List<PlanStep> pendingSteps,
                       ProgrammingBook book, Function<String, HnsDataplane.Backoff> backoff, Instant at) {
    public static final String AGENT = "agent";
    public static final String COMPUTED = "computed";
}
