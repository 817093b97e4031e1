package io.actiongate.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** The committed OpenAPI document is served as it is, and the oracle that the ITs use refuses what it omits. */
class OpenApiDocumentTest {

    private final OpenApiContract contract = new OpenApiContract();

    @Test
    void shouldBeOpenApi31CoveringEveryV1Handler() {
        assertThat(contract.document().path("openapi").asText()).isEqualTo("3.1.0");
        List<String> paths = new ArrayList<>();
        contract.document().path("paths").fieldNames().forEachRemaining(paths::add);
        assertThat(paths).containsExactlyInAnyOrder(ProposalsHandler.PATH, ActionsHandler.PREFIX
                + "{task_id}/{tool_call_id}", OpenApiHandler.PATH);
    }

    @Test
    void shouldServeTheCommittedDocument() {
        try (GateHttpServer server = new GateHttpServer(HttpServerConfig.loopbackEphemeral(), new FakeStateQuery(),
                new io.prometheus.metrics.model.registry.PrometheusRegistry(), () -> true).start()) {
            var response = Http.get(server.port(), OpenApiHandler.PATH);
            assertThat(response.statusCode()).isEqualTo(200);
            contract.checkResponse("GET", OpenApiHandler.PATH, 200,
                    response.headers().firstValue("Content-Type").orElse(null), response.body());
            assertThat(readTree(response.body())).isEqualTo(contract.document());
        }
    }

    @Test
    void shouldRefuseAnAnswerTheDocumentDoesNotDescribe() {
        String path = "/v1/actions/T-1/c-1";
        assertThatThrownBy(() -> contract.checkResponse("GET", path, 418, "application/json", "{}"))
                .hasMessageContaining("no 418 answer");
        assertThatThrownBy(() -> contract.checkResponse("GET", path, 404, "application/json",
                "{\"error\":\"not_found\",\"message\":\"x\",\"extra\":1}")).hasMessageContaining("extra");
        assertThatThrownBy(() -> contract.checkResponse("POST", "/v1/proposals", 200, "application/json",
                "{\"task_id\":\"T-1\"}")).hasMessageContaining("required");
        assertThatThrownBy(() -> contract.checkRequest("POST", "/v1/proposals", null,
                "{\"task_id\":\"T 1\",\"tool_call_id\":\"c\",\"provider\":\"p\",\"operation\":\"o\","
                        + "\"tool_name\":\"t\",\"tool_schema_hash\":\"h\",\"input\":{},\"summary\":\"s\"}"))
                .hasMessageContaining("pattern");
        assertThatThrownBy(() -> contract.checkRequest("GET", path, "wait=soon", null))
                .hasMessageContaining("wait=soon");
        assertThatThrownBy(() -> contract.template("/v1/nothing")).hasMessageContaining("no path");
    }

    private static com.fasterxml.jackson.databind.JsonNode readTree(String body) {
        try {
            return HttpJson.MAPPER.readTree(body);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
