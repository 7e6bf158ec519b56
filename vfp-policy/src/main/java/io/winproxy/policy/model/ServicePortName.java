package io.winproxy.policy.model;

/** The identity of one service port: namespace/name, port name and protocol (kube-proxy's ServicePortName). */
public record ServicePortName(String namespace, String name, String port, Protocol protocol) {

    /** "namespace/name". */
    public String serviceKey() {
        return namespace + "/" + name;
    }

    /** "namespace/name:port" (kube-proxy's textual form; the port part is empty for an unnamed port). */
    @Override
    public String toString() {
        return namespace + "/" + name + ":" + port;
    }
}
