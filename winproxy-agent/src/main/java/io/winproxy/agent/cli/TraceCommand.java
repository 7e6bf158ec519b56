package io.winproxy.agent.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.winproxy.agent.config.ConfigException;
import io.winproxy.policy.model.Protocol;
import io.winproxy.policy.plan.ObservedLoadBalancer;
import io.winproxy.policy.trace.Packet;
import io.winproxy.policy.trace.PacketTracer;
import io.winproxy.policy.trace.TraceResult;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/**
 * {@code winproxy trace [inputs] --src IP --dst IP:PORT [--protocol TCP] -o json|text}: what HNS/VFP does with one
 * packet: the load balancer it hits, the backends it may reach, DSR and the source address after SNAT. With
 * {@code --hns-state} it follows what the host holds; otherwise what winproxy would program. Changes nothing.
 */
@Command(name = "trace", description = "Explain what HNS/VFP does with one packet; changes nothing.")
public final class TraceCommand implements Callable<Integer> {
    private static final ObjectMapper MAPPER = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    @ParentCommand
    RootCommand root;

    @Mixin
    OfflineInputs inputs = new OfflineInputs();

    @Option(names = "--src", required = true, paramLabel = "IP", description = "Source IP of the packet.")
    String src;

    @Option(names = "--dst", required = true, paramLabel = "IP:PORT",
            description = "Destination of the packet (IPv6 as [ip]:port).")
    String dst;

    @Option(names = "--protocol", paramLabel = "TCP|UDP", description = "Protocol (default: TCP).")
    String protocol = "TCP";

    @Option(names = {"-o", "--output"}, paramLabel = "json|text", description = "Output format (default: text).")
    OutputFormat output = OutputFormat.text;

    @Override
    public Integer call() throws ConfigException, com.fasterxml.jackson.core.JsonProcessingException {
        Packet packet = packet();
        OfflineModel model = inputs.compute(root.context());
        TraceResult result = model.fromHnsState()
                ? PacketTracer.trace(model.withLoadBalancersRead(packet.destinationPort(), packet.protocol()),
                        model.node(), packet, model.snapshot().desired())
                : PacketTracer.trace(model.snapshot().desired(), model.node(), packet);
        if (output == OutputFormat.json) {
            root.context().out().println(MAPPER.writeValueAsString(json(result, model.fromHnsState())));
        } else {
            root.context().out().print(text(packet, result));
        }
        return 0;
    }

    private Packet packet() {
        Protocol p = Protocol.parse(protocol).filter(x -> x == Protocol.TCP || x == Protocol.UDP)
                .orElseThrow(() -> new UsageException("--protocol: must be TCP or UDP, not '" + protocol + "'"));
        int colon = dst.lastIndexOf(':');
        if (colon <= 0 || colon == dst.length() - 1) {
            throw new UsageException("--dst: expected IP:PORT (IPv6 as [ip]:port), got '" + dst + "'");
        }
        String ip = dst.substring(0, colon);
        if (ip.startsWith("[") && ip.endsWith("]")) {
            ip = ip.substring(1, ip.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(dst.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new UsageException("--dst: port must be a number, got '" + dst.substring(colon + 1) + "'");
        }
        if (port < 1 || port > 65535) {
            throw new UsageException("--dst: port must be 1-65535, got " + port);
        }
        return new Packet(src, ip, port, p);
    }

    /** The {@code trace -o json} document; {@code withIds} adds the HNS ID of the matched load balancer. */
    static ObjectNode json(TraceResult result, boolean withIds) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("verdict", result.verdict().jsonName());
        if (result.desiredLoadBalancer() != null) {
            ObjectNode lb = PlanOutput.loadBalancer(result.desiredLoadBalancer());
            if (withIds && result.loadBalancer() != null && result.loadBalancer().id() != null) {
                lb.put("id", result.loadBalancer().id());
            }
            root.set("loadBalancer", lb);
        } else if (result.loadBalancer() != null) {
            root.set("loadBalancer", observed(result.loadBalancer()));
        } else {
            root.putNull("loadBalancer");
        }
        ArrayNode backends = root.putArray("backends");
        result.sortedBackends().forEach(backends::add);
        root.put("dsr", result.dsr());
        root.put("sourceAddress", result.sourceAddress());
        ArrayNode explanation = root.putArray("explanation");
        result.explanation().forEach(explanation::add);
        return root;
    }

    /** An HNS load balancer no desired one names (e.g. unowned), in the plan shape with what HNS tells. */
    private static ObjectNode observed(ObservedLoadBalancer lb) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("id", lb.id());
        node.put("service", "");
        node.put("port", "");
        node.put("protocol", lb.key() == null ? "" : lb.key().protocol().name());
        node.put("kind", "");
        return PlanOutput.putHnsFields(node, lb.key(), lb.internalPort(), lb.backendIps(), lb.sourceVip(), lb.flags(),
                lb.portMappingFlags(), lb.distributionType());
    }

    private static String text(Packet packet, TraceResult result) {
        StringBuilder out = new StringBuilder();
        out.append(packet.protocol()).append(' ').append(packet.sourceIp()).append(" -> ")
                .append(packet.destinationIp().contains(":") ? "[" + packet.destinationIp() + "]"
                        : packet.destinationIp()).append(':').append(packet.destinationPort()).append(": ")
                .append(result.verdict().jsonName()).append('\n');
        if (result.desiredLoadBalancer() != null) {
            out.append("  load balancer: ").append(result.desiredLoadBalancer().key()).append(" (")
                    .append(result.desiredLoadBalancer().kind().displayName()).append(' ')
                    .append(result.desiredLoadBalancer().service()).append(")\n");
        }
        if (!result.backends().isEmpty()) {
            out.append("  backends: ").append(String.join(", ", result.sortedBackends())).append('\n');
        }
        out.append("  dsr: ").append(result.dsr()).append("; source after SNAT: ").append(result.sourceAddress())
                .append('\n');
        result.explanation().forEach(line -> out.append("  - ").append(line).append('\n'));
        return out.toString();
    }
}
