package io.actiongate.topics.admin;

import io.actiongate.topics.TopicSpec;

/** One way an existing topic differs from its {@link TopicSpec}: {@code property} is {@code actual}, not {@code expected}. */
public record TopicDrift(String property, String expected, String actual) {

    public static final String PARTITIONS = "partitions";

    @Override
    public String toString() {
        return property + " is " + actual + ", expected " + expected;
    }
}
