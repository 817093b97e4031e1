package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Every status the server can send on a path is in the OpenAPI document ({@code 408} of
 * {@code POST /v1/proposals} was answered and missing). The statuses come from the handlers' own code (every
 * {@code Responses.*(exchange, NNN, ...)} of the handler serving the path), not from a list kept beside the document,
 * so a new answer without its document entry fails here before any client meets it.
 */
class OpenApiStatusesTest {

    private static final Path SOURCES = Path.of("src/main/java/io/actiongate/http");
    /** {@code Responses.json(exchange, 408, ...)}: the status and the rest of the line (for the not-found case). */
    private static final Pattern ANSWER = Pattern.compile("Responses\\.\\w+\\((?:exchange|call), (\\d{3}),(.*)");

    private final OpenApiContract contract = new OpenApiContract();

    /** Which handler sources answer on which documented operation. */
    private static final Map<String, List<String>> HANDLERS = Map.of(
            "post " + ProposalsHandler.PATH, List.of("ProposalsHandler.java"),
            "get " + ActionsHandler.PREFIX + "{task_id}/{tool_call_id}",
            List.of("ActionsHandler.java", "ActionWaitHandler.java", "NodeAuth.java"),
            "get " + OpenApiHandler.PATH, List.of("OpenApiHandler.java"));

    @Test
    void shouldDocumentEveryStatusAHandlerSendsOnItsPath() throws IOException {
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, List<String>> operation : HANDLERS.entrySet()) {
            String[] methodPath = operation.getKey().split(" ", 2);
            TreeSet<Integer> sent = new TreeSet<>();
            for (String source : operation.getValue()) {
                sent.addAll(statuses(SOURCES.resolve(source)));
            }
            assertThat(sent).as("statuses found in %s", operation.getValue()).isNotEmpty();
            for (int status : sent) {
                if (contract.document().path("paths").path(methodPath[1]).path(methodPath[0]).path("responses")
                        .path(Integer.toString(status)).isMissingNode()) {
                    missing.add(operation.getKey() + " " + status);
                }
            }
        }
        assertThat(missing).as("statuses the server sends that the OpenAPI document does not declare").isEmpty();
    }

    @Test
    void shouldFindTheBodyTimeoutAmongTheProposalAnswers() throws IOException {
        // the scan itself must see what the issue found missing, or the test above proves nothing
        assertThat(statuses(SOURCES.resolve("ProposalsHandler.java"))).contains(408, 400, 401, 403, 409, 503);
    }

    @Test
    void shouldDocumentTheTurnLimitOfTheDocumentItself() {
        // /v1/openapi.json takes turns in the runtime's QoSHandler, which answers 503 beyond http.queue.max
        assertThat(contract.document().path("paths").path(OpenApiHandler.PATH).path("get").path("responses")
                .has("503")).isTrue();
    }

    /**
     * Statuses a handler source sends, without its 404 "no such resource" for a path that is not its own (that
     * answer is never sent on the documented path).
     */
    private static List<Integer> statuses(Path source) throws IOException {
        List<Integer> statuses = new ArrayList<>();
        Matcher m = ANSWER.matcher(Files.readString(source, StandardCharsets.UTF_8));
        while (m.find()) {
            int status = Integer.parseInt(m.group(1));
            if (status == 404 && m.group(2).contains("no such resource")) {
                continue;
            }
            statuses.add(status);
        }
        return statuses;
    }
}
