package io.winproxy.agent.bench;

import io.fabric8.kubernetes.api.model.FieldsV1;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntry;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.winproxy.policy.model.EndpointSliceInfo;
import io.winproxy.policy.model.NodeInfo;
import io.winproxy.policy.model.ServiceInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The scale cluster ({@link ScaleCluster}) as the API server serves it, for the node mode: fabric8 objects shaped
 * like a real cluster's, not just the fields the proxy reads. Each object has a UID, a creation timestamp, labels, an
 * annotation and one {@code managedFields} entry as server-side apply writes them; each slice has its owner
 * reference and managed-by label, and each endpoint its {@code targetRef} (the Pod), node name, zone and conditions.
 * The proxy reads none of that, which is the point: an informer that keeps whole objects pays for it.
 */
final class ScaleObjects {
    private static final String CREATED = "2026-11-01T00:00:00Z";

    private ScaleObjects() {
    }

    static Node node(NodeInfo node) {
        return new NodeBuilder().withMetadata(meta(null, node.name(), Map.of("kubernetes.io/os", "windows",
                        "kubernetes.io/hostname", node.name()), "kubelet"))
                .withNewSpec().withPodCIDR(node.podCidrs().get(0)).withPodCIDRs(node.podCidrs()).endSpec()
                .withNewStatus().addNewAddress().withType("InternalIP").withAddress(node.internalIps().get(0))
                .endAddress().addNewAddress().withType("Hostname").withAddress(node.name()).endAddress().endStatus()
                .build();
    }

    static Service service(ServiceInfo s) {
        List<io.fabric8.kubernetes.api.model.ServicePort> ports = new ArrayList<>();
        for (ServiceInfo.ServicePortSpec p : s.ports()) {
            ServicePortBuilder b = new ServicePortBuilder().withName(p.name()).withProtocol(p.protocol())
                    .withPort(p.port()).withTargetPort(new IntOrString(Integer.valueOf(p.targetPort())));
            if (p.nodePort() != 0) {
                b.withNodePort(p.nodePort());
            }
            ports.add(b.build());
        }
        return new ServiceBuilder()
                .withMetadata(meta(s.namespace(), s.name(), Map.of("app", s.name(),
                        "app.kubernetes.io/part-of", "scale-benchmark"), "kubectl-client-side-apply"))
                .withNewSpec().withType(s.type()).withClusterIP(s.clusterIps().get(0)).withClusterIPs(s.clusterIps())
                .withIpFamilies(s.ipFamilies()).withIpFamilyPolicy("SingleStack").withPorts(ports)
                .withSelector(Map.of("app", s.name())).withSessionAffinity(s.sessionAffinity())
                .withInternalTrafficPolicy("Cluster")
                .withExternalTrafficPolicy("NodePort".equals(s.type()) ? "Cluster" : null)
                .endSpec().withNewStatus().withNewLoadBalancer().endLoadBalancer().endStatus().build();
    }

    static EndpointSlice slice(EndpointSliceInfo s) {
        List<Endpoint> endpoints = new ArrayList<>();
        for (EndpointSliceInfo.SliceEndpoint e : s.endpoints()) {
            String pod = s.serviceName() + "-" + e.addresses().get(0).replace('.', '-');
            endpoints.add(new EndpointBuilder().withAddresses(e.addresses()).withNodeName(e.nodeName())
                    .withZone("zone-a").withNewConditions().withReady(e.ready()).withServing(e.serving())
                    .withTerminating(e.terminating()).endConditions().withNewTargetRef().withKind("Pod")
                    .withNamespace(s.namespace()).withName(pod).withUid(uid(pod)).endTargetRef().build());
        }
        ObjectMeta meta = meta(s.namespace(), s.name(), Map.of("kubernetes.io/service-name", s.serviceName(),
                "endpointslice.kubernetes.io/managed-by", "endpointslice-controller.k8s.io"),
                "kube-controller-manager");
        meta.setGenerateName(s.serviceName() + "-");
        meta.setOwnerReferences(List.of(new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                .withApiVersion("v1").withKind("Service").withName(s.serviceName())
                .withUid(uid(s.namespace() + "/" + s.serviceName())).withController(true)
                .withBlockOwnerDeletion(true).build()));
        return new EndpointSliceBuilder().withMetadata(meta).withAddressType(s.addressType())
                .withPorts(s.ports().stream().map(p -> new EndpointPortBuilder().withName(p.name())
                        .withProtocol(p.protocol()).withPort(p.port()).build()).toList())
                .withEndpoints(endpoints).build();
    }

    private static ObjectMeta meta(String namespace, String name, Map<String, String> labels, String manager) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("f:metadata", Map.of("f:labels", Map.of(".", Map.of())));
        fields.put("f:spec", Map.of(".", Map.of()));
        FieldsV1 fieldsV1 = new FieldsV1();
        fieldsV1.setAdditionalProperties(fields);
        ManagedFieldsEntry managed = new ManagedFieldsEntryBuilder().withManager(manager).withOperation("Update")
                .withApiVersion("v1").withTime(CREATED).withFieldsType("FieldsV1").withFieldsV1(fieldsV1).build();
        return new ObjectMetaBuilder().withNamespace(namespace).withName(name)
                .withUid(uid((namespace == null ? "" : namespace + "/") + name)).withCreationTimestamp(CREATED)
                .withLabels(labels).withAnnotations(Map.of("scale.winproxy.io/generation", "1"))
                .withManagedFields(managed).build();
    }

    private static String uid(String seed) {
        return UUID.nameUUIDFromBytes(seed.getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    }
}
