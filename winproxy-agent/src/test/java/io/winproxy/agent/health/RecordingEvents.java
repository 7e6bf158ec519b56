package io.winproxy.agent.health;

import io.winproxy.agent.kube.EventRecorder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** An EventRecorder that keeps every event, for assertions. */
public final class RecordingEvents implements EventRecorder {

    /** One recorded event. */
    public record Event(String kind, String namespace, String name, String type, String reason, String message) {
    }

    private final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void event(String kind, String namespace, String name, String type, String reason, String message) {
        events.add(new Event(kind, namespace, name, type, reason, message));
    }

    public List<Event> events() {
        return List.copyOf(events);
    }
}
