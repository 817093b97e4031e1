package io.actiongate.topics.admin;

import java.util.List;
import java.util.stream.Collectors;

/** What {@link TopicsCreator} did with one topic and how the existing topic compares with its spec. */
public record TopicResult(String name, Action action, List<TopicDrift> drifts) {

    /** Whether the topic was made now or found. */
    public enum Action {
        CREATED,
        EXISTS
    }

    public TopicResult {
        drifts = List.copyOf(drifts);
    }

    public static TopicResult created(String name) {
        return new TopicResult(name, Action.CREATED, List.of());
    }

    public static TopicResult exists(String name, List<TopicDrift> drifts) {
        return new TopicResult(name, Action.EXISTS, drifts);
    }

    public boolean hasDrift() {
        return !drifts.isEmpty();
    }

    /** E.g. {@code actiongate.receipts  exists, DRIFT: cleanup.policy is delete, expected compact}. */
    public String line(int nameWidth) {
        String padded = String.format("%-" + Math.max(1, nameWidth) + "s", name);
        if (action == Action.CREATED) {
            return padded + "  created";
        }
        if (!hasDrift()) {
            return padded + "  exists, ok";
        }
        return padded + "  exists, DRIFT: "
                + drifts.stream().map(TopicDrift::toString).collect(Collectors.joining("; "));
    }
}
