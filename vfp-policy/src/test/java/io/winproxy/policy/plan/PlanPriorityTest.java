package io.winproxy.policy.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.winproxy.policy.desired.DesiredLoadBalancer;
import io.winproxy.policy.desired.DesiredRemoteEndpoint;
import io.winproxy.policy.desired.LoadBalancerKey;
import io.winproxy.policy.desired.LoadBalancerKind;
import io.winproxy.policy.model.IpFamily;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.model.ServicePortName;
import java.util.List;
import org.junit.jupiter.api.Test;

class PlanPriorityTest {
    private static final ServicePortName WEB = new ServicePortName("default", "web", "http", Protocol.TCP);

    private static DesiredLoadBalancer lb(String vip, String... backends) {
        return new DesiredLoadBalancer(WEB, LoadBalancerKind.CLUSTER_IP,
                new LoadBalancerKey(IpFamily.IPV4, vip, Protocol.TCP, 80), 8080, List.of(backends), "", 0, 0, 0);
    }

    private static PlanStep.CreateRemoteEndpoint ep(String ip) {
        return new PlanStep.CreateRemoteEndpoint(new DesiredRemoteEndpoint(ip, "192.168.1.12", ""));
    }

    @Test
    void deletionsComeFirstThenNewLoadBalancersWithTheirEndpointsThenUpdatesThenTheRest() {
        PlanStep epA = ep("10.244.2.1");
        PlanStep epB = ep("10.244.2.2");
        PlanStep epSpare = ep("10.244.2.9");
        PlanStep update = new PlanStep.ModifyLoadBalancer("lb-1", lb("10.96.0.1", "10.244.2.2"));
        PlanStep create = new PlanStep.CreateLoadBalancer(lb("10.96.0.2", "10.244.2.1", "10.244.1.5"));
        PlanStep delete = new PlanStep.DeleteLoadBalancer("lb-9", "no service needs it");
        PlanStep adopt = new PlanStep.AdoptLoadBalancer("lb-3", lb("10.96.0.3"));
        PlanStep epDelete = new PlanStep.DeleteRemoteEndpoint("ep-9", "10.244.2.8");
        List<PlanStep> plan = List.of(epA, epB, epSpare, update, create, adopt, delete, epDelete);

        assertThat(PlanPriority.order(plan)).containsExactly(adopt, delete, epA, create, epB, update, epSpare,
                epDelete);
    }

    @Test
    void everyStepIsKeptExactlyOnce() {
        PlanStep ep = ep("10.244.2.1");
        PlanStep twice = ep("10.244.2.1");
        List<PlanStep> plan = List.of(ep, twice, new PlanStep.CreateLoadBalancer(lb("10.96.0.2", "10.244.2.1")),
                new PlanStep.CreateLoadBalancer(lb("10.96.0.3", "10.244.2.1")));

        assertThat(PlanPriority.order(plan)).hasSize(4).containsExactlyInAnyOrderElementsOf(plan);
    }
}
