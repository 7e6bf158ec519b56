package io.winproxy.policy.plan;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The {@link PlanStep#op()} names: a step record's simple name in kebab case, computed once per kind. */
final class OpNames {
    private static final ConcurrentMap<Class<?>, String> names = new ConcurrentHashMap<>();

    private OpNames() {
    }

    static String of(Class<?> kind) {
        return names.computeIfAbsent(kind, k -> kebab(k.getSimpleName()));
    }

    /** "CreateLoadBalancer" becomes "create-load-balancer". */
    static String kebab(String camel) {
        StringBuilder out = new StringBuilder(camel.length() + 4);
        for (int i = 0; i < camel.length(); i++) {
            char c = camel.charAt(i);
            if (Character.isUpperCase(c)) {
                if (i > 0) {
                    out.append('-');
                }
                out.append(Character.toLowerCase(c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
