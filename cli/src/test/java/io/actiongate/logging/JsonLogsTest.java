package io.actiongate.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import io.actiongate.key.ActionLogContext;

/**
 * The production logback.xml (not the tests' logback-test.xml) configured in a private context: with
 * ACTIONGATE_LOG_FORMAT=json every line is one JSON object carrying the action key; the default stays text.
 */
class JsonLogsTest {

    private static final String FORMAT = "ACTIONGATE_LOG_FORMAT";

    private final PrintStream originalErr = System.err;

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        System.clearProperty(FORMAT);
    }

    private static String logWithProductionConfig(String format) throws Exception {
        if (format != null) {
            System.setProperty(FORMAT, format);
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        LoggerContext context = new LoggerContext();
        // the same MDC as org.slf4j.MDC, which ActionLogContext writes to
        context.setMDCAdapter(((LoggerContext) LoggerFactory.getILoggerFactory()).getMDCAdapter());
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            URL config = JsonLogsTest.class.getClassLoader().getResource("logback.xml");
            assertThat(config).as("the production logback.xml").isNotNull();
            configurator.doConfigure(config);
            org.slf4j.Logger log = context.getLogger("io.actiongate.executor.DispatchLoop");
            ActionLogContext.Scope action = ActionLogContext.enter("T-1", "call-7");
            try (action) {
                log.info("dispatched attempt {} of {}", 1, "T-1/call-7");
            }
            log.warn("outside any action \"quoted\"\nsecond line", new IllegalStateException("boom"));
            // a malformed key is attacker text: it never reaches the log context
            ActionLogContext.Scope malformed = ActionLogContext.enter("bad key/<script>");
            try (malformed) {
                log.info("after a malformed key");
            }
            context.getLogger("org.apache.kafka.clients.Metadata").info("client chatter below WARN");
        } finally {
            context.stop();
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldWriteOneParseableJsonObjectPerLineWithTheActionKey() throws Exception {
        String output = logWithProductionConfig("json");
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : output.split("\n")) {
            if (!line.isBlank()) {
                lines.add(mapper.readTree(line));
            }
        }
        assertThat(lines).hasSize(3);
        JsonNode first = lines.get(0);
        assertThat(first.path("level").asText()).isEqualTo("INFO");
        assertThat(first.path("loggerName").asText()).isEqualTo("io.actiongate.executor.DispatchLoop");
        assertThat(first.path("formattedMessage").asText()).isEqualTo("dispatched attempt 1 of T-1/call-7");
        assertThat(first.path("mdc").path(ActionLogContext.MDC_KEY).asText()).isEqualTo("T-1/call-7");
        assertThat(first.has("arguments")).isFalse();
        assertThat(first.path("timestamp").asLong()).isPositive();

        JsonNode second = lines.get(1);
        assertThat(second.path("level").asText()).isEqualTo("WARN");
        assertThat(second.path("formattedMessage").asText()).isEqualTo("outside any action \"quoted\"\nsecond line");
        assertThat(second.path("mdc").has(ActionLogContext.MDC_KEY)).isFalse();
        assertThat(second.path("throwable").toString()).contains("IllegalStateException", "boom");

        assertThat(lines.get(2).path("mdc").has(ActionLogContext.MDC_KEY)).isFalse();
        assertThat(output).doesNotContain("<script>").doesNotContain("client chatter");
    }

    @Test
    void shouldStayTextByDefaultWithTheActionKeyInBrackets() throws Exception {
        String output = logWithProductionConfig(null);
        assertThat(output.lines().findFirst()).hasValueSatisfying(line ->
                assertThat(line).matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  DispatchLoop \\[T-1/call-7] - "
                        + "dispatched attempt 1 of T-1/call-7"));
        assertThat(output).contains("WARN  DispatchLoop - outside any action").doesNotContain("{\"");
    }
}
