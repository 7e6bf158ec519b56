package io.winproxy.agent.cds;

/** The main class of {@link SharedArchiveTest}'s small jar: loads a few JDK classes and prints one word. */
public final class TrainingStandIn {
    private TrainingStandIn() {
    }

    public static void main(String[] args) {
        System.out.println(String.join(",", new java.util.TreeSet<>(java.util.List.of("trained"))));
    }
}
