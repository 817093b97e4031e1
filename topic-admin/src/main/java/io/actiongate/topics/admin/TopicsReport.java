package io.actiongate.topics.admin;

import java.util.List;
import java.util.stream.Collectors;

import io.actiongate.topics.Topics;

/** The outcome of one {@link TopicsCreator} run, one result per topic in {@link Topics#ALL} order. */
public record TopicsReport(List<TopicResult> topics) {

    public TopicsReport {
        topics = List.copyOf(topics);
    }

    public boolean hasDrift() {
        return topics.stream().anyMatch(TopicResult::hasDrift);
    }

    public List<TopicResult> drifted() {
        return topics.stream().filter(TopicResult::hasDrift).collect(Collectors.toList());
    }

    /** One aligned line per topic. */
    public List<String> lines() {
        int width = topics.stream().mapToInt(t -> t.name().length()).max().orElse(0);
        return topics.stream().map(t -> t.line(width)).collect(Collectors.toList());
    }
}
