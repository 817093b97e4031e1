package io.actiongate.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;

/**
 * The committed OpenAPI 3.1 document as a test oracle: a request or an answer seen by a test is matched to its path
 * template, operation and status, and its JSON body is validated against the schema the document gives there
 * (networknt json-schema-validator, OpenAPI 3.1 dialect, {@code $ref}s resolved inside the document). Anything the
 * document does not describe (a path, a method, a status, a member) is a violation, so the document cannot drift.
 */
final class OpenApiContract {

    static final String RESOURCE = "io/actiongate/http/openapi.json";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final JsonNode document;
    private final SchemaRegistry registry = SchemaRegistry.withDefaultDialect(Dialects.getOpenApi31());
    private final Map<String, Schema> schemas = new ConcurrentHashMap<>();
    /** Every (method path-template status) seen, for coverage assertions. */
    private final List<String> seen = java.util.Collections.synchronizedList(new ArrayList<>());

    OpenApiContract() {
        try (InputStream in = OpenApiContract.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            document = JSON.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    JsonNode document() {
        return document;
    }

    List<String> seen() {
        return List.copyOf(seen);
    }

    /** Checks a request body; throws {@link AssertionError} naming every violation. */
    void checkRequest(String method, String rawPath, String rawQuery, String body) {
        String template = template(rawPath);
        JsonNode operation = operation(method, template);
        checkQuery(operation, template, rawQuery);
        JsonNode schema = operation.path("requestBody").path("content").path("application/json").path("schema");
        if (schema.isMissingNode()) {
            return;
        }
        validate(pointer(method, template) + "/requestBody/content/application~1json/schema", parse(body),
                method + " " + rawPath + " request");
    }

    /** Checks an answer: its status is documented for the operation, and its JSON body fits that schema. */
    void checkResponse(String method, String rawPath, int status, String contentType, String body) {
        String template = template(rawPath);
        JsonNode operation = operation(method, template);
        JsonNode response = operation.path("responses").path(Integer.toString(status));
        if (response.isMissingNode()) {
            throw new AssertionError("the OpenAPI document has no " + status + " answer for " + method + " "
                    + template);
        }
        seen.add(method + " " + template + " " + status);
        JsonNode schema = response.path("content").path("application/json").path("schema");
        if (schema.isMissingNode()) {
            return;
        }
        if (contentType == null || !contentType.startsWith("application/json")) {
            throw new AssertionError(method + " " + rawPath + " " + status + " answered " + contentType
                    + ", the document says application/json");
        }
        validate(pointer(method, template) + "/responses/" + status + "/content/application~1json/schema",
                parse(body), method + " " + rawPath + " " + status);
    }

    private void checkQuery(JsonNode operation, String template, String rawQuery) {
        Map<String, String> params = ActionWaitHandler.params(rawQuery);
        for (Map.Entry<String, String> p : params.entrySet()) {
            JsonNode declared = null;
            for (JsonNode parameter : operation.path("parameters")) {
                if ("query".equals(parameter.path("in").asText()) && p.getKey().equals(parameter.path("name").asText())) {
                    declared = parameter;
                }
            }
            if (declared == null) {
                throw new AssertionError("query parameter " + p.getKey() + " is not in the document for " + template);
            }
            List<Error> errors = registry.getSchema(declared.path("schema")).validate(JSON.getNodeFactory()
                    .textNode(p.getValue()));
            if (!errors.isEmpty()) {
                throw new AssertionError("query parameter " + p.getKey() + "=" + p.getValue() + ": " + errors);
            }
        }
    }

    private void validate(String pointer, JsonNode instance, String what) {
        Schema schema = schemas.computeIfAbsent(pointer, p -> registry.getSchema(
                SchemaLocation.of("classpath:" + RESOURCE + "#" + p)));
        List<Error> errors = schema.validate(instance);
        if (!errors.isEmpty()) {
            throw new AssertionError(what + " does not fit the OpenAPI document: " + errors + " in " + instance);
        }
    }

    private JsonNode operation(String method, String template) {
        JsonNode operation = document.path("paths").path(template).path(method.toLowerCase(java.util.Locale.ROOT));
        if (operation.isMissingNode()) {
            throw new AssertionError("the OpenAPI document has no " + method + " " + template);
        }
        return operation;
    }

    /** The document's path template that {@code rawPath} matches. */
    String template(String rawPath) {
        Iterator<String> templates = document.path("paths").fieldNames();
        while (templates.hasNext()) {
            String template = templates.next();
            String regex = Pattern.quote(template).replaceAll("\\{[a-z_]+}", "\\\\E[^/]+\\\\Q");
            if (rawPath.matches(regex)) {
                return template;
            }
        }
        throw new AssertionError("the OpenAPI document has no path for " + rawPath);
    }

    private static String pointer(String method, String template) {
        return "/paths/" + template.replace("~", "~0").replace("/", "~1") + "/"
                + method.toLowerCase(java.util.Locale.ROOT);
    }

    private static JsonNode parse(String body) {
        try {
            return JSON.readTree(body);
        } catch (IOException e) {
            throw new AssertionError("not JSON: " + body, e);
        }
    }
}
