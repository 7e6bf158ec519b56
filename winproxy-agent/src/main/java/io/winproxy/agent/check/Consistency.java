package io.winproxy.agent.check;

import io.winproxy.agent.dataplane.OwnershipJournal;
import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.DesiredState;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.ServiceInfo;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.plan.ObservedState;
import io.winproxy.policy.plan.Plan;
import io.winproxy.policy.plan.PlanStep;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The consistency group: what HNS holds against what the Services want, read only. It is the proxy's own reconcile
 * run once ({@link io.winproxy.agent.pipeline.ProxyPipeline#evaluate}: policy, then the plan against the observed
 * host and the ownership journal); every operation of that plan is an inconsistency, named with its Service port and
 * HNS ID: a load balancer missing (with the ID it had, when the journal saw it vanish), stale, or held by an object
 * winproxy does not own; an owned load balancer or remote endpoint no Service wants (leaked); a remote endpoint
 * missing. Beside the plan: unowned load balancers on a desired frontend (a duplicated frontend), and the cluster DNS
 * Service's ClusterIP.
 */
public final class Consistency {
    private static final CheckGroup G = CheckGroup.consistency;
    private static final int MAX_LEFTOVER_LINES = 10;

    /**
     * @param desired  the desired state of this node
     * @param observed the host as the reconcile observed it
     * @param plan     the plan between them
     * @param journal  the ownership journal the plan was computed with (read only)
     * @param services the Services, to find the cluster DNS Service
     */
    public record Inputs(DesiredState desired, ObservedState observed, Plan plan, OwnershipJournal journal,
                         List<ServiceInfo> services) {
    }

    private Consistency() {
    }

    public static List<CheckResult> run(Inputs in) {
        List<CheckResult> out = new ArrayList<>();
        Map<String, String> vanishedIdByKey = new HashMap<>();
        in.journal().vanished().forEach((id, v) -> {
            if (v.lb() != null) {
                vanishedIdByKey.put(v.lb().key(), id);
            }
        });
        for (PlanStep step : in.plan().steps()) {
            out.add(step.accept(new Finding(in, vanishedIdByKey)));
        }
        duplicates(in, out);
        long failures = out.stream().filter(r -> r.status() == CheckStatus.FAIL).count();
        if (failures == 0) {
            out.add(0, CheckResult.pass(G, "load-balancers", in.desired().loadBalancers().size() + " load balancers"
                    + " and " + in.desired().remoteEndpoints().size() + " remote endpoints match what the Services"
                    + " want"));
        }
        out.add(dns(in, vanishedIdByKey));
        return out;
    }

    /** Unowned load balancers: on a desired frontend a FAIL (two objects, one VIP), else a leftover (WARN). */
    private static void duplicates(Inputs in, List<CheckResult> out) {
        Map<String, ObservedLoadBalancer> byId = new HashMap<>();
        in.observed().loadBalancers().forEach(lb -> byId.put(lb.id(), lb));
        Set<String> replaced = new HashSet<>();
        in.plan().steps().stream().filter(s -> s instanceof PlanStep.ReplaceLoadBalancer)
                .forEach(s -> replaced.add(((PlanStep.ReplaceLoadBalancer) s).oldId()));
        int leftovers = 0;
        for (String id : in.plan().unownedLoadBalancerIds()) {
            ObservedLoadBalancer lb = byId.get(id);
            if (lb == null || replaced.contains(id)) {
                continue;
            }
            Optional<DesiredLoadBalancer> wanted = lb.key() == null ? Optional.empty()
                    : in.desired().loadBalancer(lb.key());
            if (wanted.isPresent()) {
                out.add(CheckResult.fail(G, "duplicate-frontend", "load balancer " + id + " that winproxy does not own"
                                + " has the frontend " + lb.key() + " of " + wanted.get().service() + " too",
                        "another proxy (kube-proxy, a second winproxy) or a leftover holds the same VIP, protocol and"
                                + " port; traffic may go to either",
                        "stop the other proxy; after kube-proxy run 'winproxy cleanup --all', else 'winproxy hns"
                                + " delete load-balancer " + id + "' (docs/troubleshooting.md#duplicate-frontend)")
                        .about(wanted.get().service().toString()).on(id));
            } else if (leftovers++ < MAX_LEFTOVER_LINES) {
                out.add(CheckResult.warn(G, "unowned-load-balancer", "load balancer " + id + " (" + lb.key()
                                + ") is not winproxy's and no Service of this node wants it",
                        "a leftover of kube-proxy or another tool; winproxy leaves it in place",
                        "after kube-proxy, 'winproxy cleanup --all'; else 'winproxy hns delete load-balancer " + id
                                + "' (docs/troubleshooting.md#unowned-load-balancer)").on(id));
            }
        }
        if (leftovers > MAX_LEFTOVER_LINES) {
            out.add(CheckResult.warn(G, "unowned-load-balancer", (leftovers - MAX_LEFTOVER_LINES) + " more unowned"
                            + " load balancers", "leftovers of kube-proxy or another tool",
                    "'winproxy hns list' shows them (docs/troubleshooting.md#unowned-load-balancer)"));
        }
    }

    /**
     * The cluster DNS Service (kube-system/kube-dns or coredns): its ClusterIP load balancers exist in HNS as wanted.
     * Found among the desired load balancers, else among the Services read (when the caller has them).
     */
    private static CheckResult dns(Inputs in, Map<String, String> vanishedIdByKey) {
        List<DesiredLoadBalancer> wanted = in.desired().loadBalancers().stream()
                .filter(lb -> isDns(lb.service().namespace(), lb.service().name()))
                .filter(lb -> lb.kind() == LoadBalancerKind.CLUSTER_IP).toList();
        Optional<ServiceInfo> dns = in.services().stream().filter(s -> isDns(s.namespace(), s.name())).findFirst();
        if (wanted.isEmpty()) {
            if (dns.isEmpty()) {
                return CheckResult.warn(G, "dns-vip", "no cluster DNS Service (kube-system/kube-dns) load balancer"
                                + " is wanted on this node", "the cluster has no kube-dns Service, or it is selected"
                                + " away by --service-proxy-name",
                        "check the cluster's DNS add-on (docs/troubleshooting.md#dns-vip)");
            }
            String name = dns.get().namespace() + "/" + dns.get().name();
            return CheckResult.warn(G, "dns-vip", "cluster DNS " + name + " needs no load balancer on this node",
                    "the Service has no ready endpoint", "check the DNS pods: kubectl -n kube-system get pods -l"
                            + " k8s-app=kube-dns (docs/troubleshooting.md#dns-vip)").about(name);
        }
        String name = wanted.get(0).service().namespace() + "/" + wanted.get(0).service().name();
        Map<LoadBalancerKey, String> observedIds = new HashMap<>();
        in.observed().loadBalancers().stream().filter(lb -> lb.key() != null)
                .forEach(lb -> observedIds.putIfAbsent(lb.key(), lb.id()));
        Set<LoadBalancerKey> pending = new HashSet<>();
        in.plan().steps().stream().filter(PlanStep::writes).filter(s -> s instanceof PlanStep.LoadBalancerStep)
                .forEach(s -> pending.add(((PlanStep.LoadBalancerStep) s).loadBalancer().key()));
        Set<String> ok = new LinkedHashSet<>();
        for (DesiredLoadBalancer lb : wanted) {
            String id = observedIds.get(lb.key());
            if (id == null || pending.contains(lb.key())) {
                String gone = vanishedIdByKey.getOrDefault(lb.key().toString(), "");
                return CheckResult.fail(G, "dns-vip", "cluster DNS " + name + " " + lb.key() + " is not programmed"
                                + (id != null ? " as wanted (load balancer " + id + ")"
                                : gone.isEmpty() ? "" : " (load balancer " + gone + " was deleted)"),
                        "pods on this node cannot resolve names through the DNS VIP (networkhealth's"
                                + " ValidDNSLoadbalancerPolicy)", "see the load balancer findings above; the proxy"
                                + " repairs it on its next sync, else 'winproxy status " + name + "'"
                                + " (docs/troubleshooting.md#dns-vip)").about(lb.service().toString())
                        .on(id != null ? id : vanishedIdByKey.getOrDefault(lb.key().toString(), ""));
            }
            ok.add(lb.key() + " " + id);
        }
        return CheckResult.pass(G, "dns-vip", "cluster DNS " + name + " is programmed: " + String.join(", ", ok))
                .about(name);
    }

    private static boolean isDns(String namespace, String name) {
        return "kube-system".equals(namespace) && ("kube-dns".equals(name) || "coredns".equals(name));
    }

    /** One plan step as a finding. */
    private record Finding(Inputs in, Map<String, String> vanishedIdByKey) implements PlanStep.Visitor<CheckResult> {
        @Override
        public CheckResult createRemoteEndpoint(PlanStep.CreateRemoteEndpoint step) {
            DesiredRemoteEndpoint ep = step.endpoint();
            List<String> users = usersOf(ep.ip());
            return CheckResult.fail(G, "remote-endpoint-missing", "remote endpoint " + ep.ip()
                            + (ep.providerAddress().isEmpty() ? "" : " (provider address " + ep.providerAddress() + ")")
                            + " is missing; backends of " + summary(users),
                    "deleted behind winproxy's back, lost in an HNS restart, or the proxy has not synced",
                    "the proxy re-creates it on its next sync; if it stays missing, 'winproxy status'"
                            + " (docs/troubleshooting.md#remote-endpoint-missing)")
                    .about(users.isEmpty() ? "" : users.get(0));
        }

        @Override
        public CheckResult adoptRemoteEndpoint(PlanStep.AdoptRemoteEndpoint step) {
            return CheckResult.warn(G, "remote-endpoint-unowned", "remote endpoint " + step.id() + " ("
                            + step.endpoint().ip() + ") fits but is not in winproxy's journal",
                    "created by another tool or an earlier proxy", "nothing: the proxy adopts it on its next sync"
                            + " (docs/troubleshooting.md#unowned-load-balancer)").on(step.id());
        }

        @Override
        public CheckResult adoptLoadBalancer(PlanStep.AdoptLoadBalancer step) {
            return CheckResult.warn(G, "load-balancer-unowned", "load balancer " + step.id() + " ("
                            + step.loadBalancer().key() + ") of " + step.service() + " fits but is not in winproxy's"
                            + " journal", "created by another tool or an earlier proxy",
                    "nothing: the proxy adopts it on its next sync (docs/troubleshooting.md#unowned-load-balancer)")
                    .about(step.service()).on(step.id());
        }

        @Override
        public CheckResult createLoadBalancer(PlanStep.CreateLoadBalancer step) {
            DesiredLoadBalancer lb = step.loadBalancer();
            String vanished = vanishedIdByKey.getOrDefault(lb.key().toString(), "");
            return CheckResult.fail(G, "load-balancer-missing", lb.kind() + " load balancer " + lb.key() + " of "
                            + lb.service() + " is missing in HNS" + (vanished.isEmpty() ? ""
                            : " (winproxy created it as " + vanished + "; it was deleted)"),
                    vanished.isEmpty() ? "not programmed yet: the proxy is not running, has not synced, or its"
                            + " create fails" : "deleted behind winproxy's back (another tool, Remove-HnsPolicyList,"
                            + " an HNS restart)",
                    "the proxy re-creates it on its next sync; if it stays missing, 'winproxy status " + lb.service()
                            + "' shows the HNS error (docs/troubleshooting.md#load-balancer-missing)")
                    .about(lb.service().toString()).on(vanished);
        }

        @Override
        public CheckResult modifyLoadBalancer(PlanStep.ModifyLoadBalancer step) {
            return stale(step.id(), step.loadBalancer());
        }

        @Override
        public CheckResult replaceLoadBalancer(PlanStep.ReplaceLoadBalancer step) {
            if (!step.unowned()) {
                return stale(step.oldId(), step.loadBalancer());
            }
            DesiredLoadBalancer lb = step.loadBalancer();
            return CheckResult.fail(G, "foreign-load-balancer", "load balancer " + step.oldId() + " that winproxy"
                            + " does not own holds the frontend " + lb.key() + " of " + lb.service()
                            + ", with other backends or flags",
                    "kube-proxy or another tool programmed this VIP; traffic follows its backends, not the"
                            + " Service's", "the proxy replaces it on its next sync; stop the other proxy first"
                            + " (docs/troubleshooting.md#foreign-load-balancer)")
                    .about(lb.service().toString()).on(step.oldId());
        }

        @Override
        public CheckResult deleteLoadBalancer(PlanStep.DeleteLoadBalancer step) {
            OwnershipJournal.LoadBalancerEntry e = in.journal().loadBalancer(step.id()).orElse(null);
            String what = e == null ? "" : " (" + e.key() + ", was " + e.service() + ")";
            return CheckResult.fail(G, "load-balancer-leaked", "load balancer " + step.id() + what + " is winproxy's"
                            + " and no Service of this node wants it (" + step.reason() + ")",
                    "the Service or port was deleted or changed while the proxy was not running, or its delete"
                            + " failed", "the proxy deletes it on its next sync; else 'winproxy cleanup'"
                            + " (docs/troubleshooting.md#leaked-object)")
                    .about(e == null ? "" : e.service()).on(step.id());
        }

        @Override
        public CheckResult deleteRemoteEndpoint(PlanStep.DeleteRemoteEndpoint step) {
            return CheckResult.fail(G, "remote-endpoint-leaked", "remote endpoint " + step.id() + " (" + step.ip()
                            + ") is winproxy's and no Service of this node needs it",
                    "its pod went away while the proxy was not running, or its delete failed (upstream leaks these:"
                            + " networkhealth's stale remote endpoints)", "the proxy deletes it on its next sync;"
                            + " else 'winproxy cleanup' (docs/troubleshooting.md#leaked-object)").on(step.id());
        }

        private CheckResult stale(String id, DesiredLoadBalancer lb) {
            return CheckResult.fail(G, "load-balancer-stale", "load balancer " + id + " (" + lb.key() + ") of "
                            + lb.service() + " differs from what the Service wants (backends, ports or flags)",
                    "changed behind winproxy's back, or the Service changed while the proxy was not running",
                    "the proxy updates it on its next sync (docs/troubleshooting.md#load-balancer-stale)")
                    .about(lb.service().toString()).on(id);
        }

        private List<String> usersOf(String ip) {
            return in.desired().loadBalancers().stream().filter(lb -> lb.backends().contains(ip))
                    .map(lb -> lb.service().toString()).distinct().toList();
        }

        private static String summary(List<String> services) {
            if (services.isEmpty()) {
                return "no Service";
            }
            return services.size() <= 3 ? String.join(", ", services)
                    : String.join(", ", services.subList(0, 3)) + " and " + (services.size() - 3) + " more";
        }
    }
}
