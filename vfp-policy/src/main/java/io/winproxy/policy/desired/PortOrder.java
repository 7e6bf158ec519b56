package io.winproxy.policy.desired;

import io.winproxy.policy.model.ServicePortName;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The live service ports of a {@link DesiredAssembler} in assembly order (namespace, name, port name, protocol),
 * with their contributions in a parallel list, so that a snapshot is one array copy. Not thread-safe.
 */
final class PortOrder {
    /** The service-port order of the assembly. */
    static final Comparator<ServicePortName> NAME_ORDER = PortOrder::compareNames;
    static final Comparator<DesiredAssembler.Port> PORT_ORDER = (a, b) -> compareNames(a.name, b.name);
    /** Above this many additions (removals) in one round the list is re-sorted (filtered) in one pass. */
    private static final int BULK = 32;

    private final ArrayList<DesiredAssembler.Port> order = new ArrayList<>();
    private final ArrayList<DesiredAssembler.Contribution> shares = new ArrayList<>();

    /**
     * Applies one round: drops the {@code removed} ports, inserts the {@code added} ones and takes the contribution
     * of the {@code reshared} ones (ports may be in several lists; a removed port is in none afterwards).
     */
    void update(List<DesiredAssembler.Port> removed, List<DesiredAssembler.Port> added,
                List<DesiredAssembler.Port> reshared) {
        boolean rebuild = removed.size() > BULK || added.size() > BULK;
        if (removed.size() > BULK) {
            order.removeIf(p -> p.removed);
        } else {
            for (DesiredAssembler.Port port : removed) {
                int i = Collections.binarySearch(order, port, PORT_ORDER);
                order.remove(i);
                shares.remove(i);
            }
        }
        if (added.size() > BULK) {
            order.addAll(added);
            order.sort(PORT_ORDER);
        } else {
            for (DesiredAssembler.Port port : added) {
                int i = -Collections.binarySearch(order, port, PORT_ORDER) - 1;
                order.add(i, port);
                shares.add(i, port.contribution);
            }
        }
        if (rebuild) {
            shares.clear();
            order.forEach(p -> shares.add(p.contribution));
            return;
        }
        for (DesiredAssembler.Port port : reshared) {
            if (!port.removed) {
                shares.set(Collections.binarySearch(order, port, PORT_ORDER), port.contribution);
            }
        }
    }

    /** The contributions in order: a copy. */
    DesiredAssembler.Contribution[] shares() {
        return shares.toArray(new DesiredAssembler.Contribution[0]);
    }

    static int compareNames(ServicePortName a, ServicePortName b) {
        int c = a.namespace().compareTo(b.namespace());
        if (c == 0) {
            c = a.name().compareTo(b.name());
        }
        if (c == 0) {
            c = a.port().compareTo(b.port());
        }
        return c != 0 ? c : a.protocol().compareTo(b.protocol());
    }
}
