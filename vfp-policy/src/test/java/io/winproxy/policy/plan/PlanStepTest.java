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
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The names, objects and write flags every kind of step reports ({@code plan -o json} and the executor's logs). */
class PlanStepTest {
    private static final DesiredLoadBalancer LB = new DesiredLoadBalancer(
            new ServicePortName("default", "web", "http", Protocol.TCP), LoadBalancerKind.CLUSTER_IP,
            new LoadBalancerKey(IpFamily.IPV4, "10.96.0.1", Protocol.TCP, 80), 8080, List.of("10.244.2.1"), "", 0, 0,
            0);
    private static final DesiredRemoteEndpoint EP = new DesiredRemoteEndpoint("10.244.2.1", "192.168.1.12", "");

    static Stream<Arguments> steps() {
        String lbKey = "10.96.0.1:80/TCP";
        String svc = "default/web:http";
        return Stream.of(
                Arguments.of(new PlanStep.CreateRemoteEndpoint(EP), "create-remote-endpoint", "10.244.2.1", "", true),
                Arguments.of(new PlanStep.AdoptRemoteEndpoint("ep-1", EP), "adopt-remote-endpoint", "10.244.2.1", "",
                        false),
                Arguments.of(new PlanStep.AdoptLoadBalancer("lb-1", LB), "adopt-load-balancer", lbKey, svc, false),
                Arguments.of(new PlanStep.CreateLoadBalancer(LB), "create-load-balancer", lbKey, svc, true),
                Arguments.of(new PlanStep.ModifyLoadBalancer("lb-1", LB), "modify-load-balancer", lbKey, svc, true),
                Arguments.of(new PlanStep.ReplaceLoadBalancer("lb-1", LB, false), "replace-load-balancer", lbKey, svc,
                        true),
                Arguments.of(new PlanStep.DeleteLoadBalancer("lb-9", "stale"), "delete-load-balancer", "lb-9", "",
                        true),
                Arguments.of(new PlanStep.DeleteRemoteEndpoint("ep-9", "10.244.2.8"), "delete-remote-endpoint", "ep-9",
                        "", true));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("steps")
    void reportsItsOpObjectServiceAndWhetherItWrites(PlanStep step, String op, String object, String service,
            boolean writes) {
        assertThat(step.op()).isEqualTo(op);
        assertThat(step.object()).isEqualTo(object);
        assertThat(step.service()).isEqualTo(service);
        assertThat(step.writes()).isEqualTo(writes);
    }
}
