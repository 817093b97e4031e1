package io.actiongate.connector.mcp;

import io.actiongate.connector.internal.Settings;
import io.actiongate.connector.spi.ConnectorContext;

import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The mcp connector's settings ({@code connectors.mcp.*}), checked once at start: {@code upstreams} names the
 * upstream MCP servers, each configured under {@code upstream.NAME.}. Secrets are resolved only by {@link #from}
 * with {@code resolveSecrets}; the gate's classifier never reads them.
 */
record McpSettings(Map<String, UpstreamSettings> upstreams, int maxInputBytes) {

    static final String UPSTREAMS = "upstreams";
    static final String UPSTREAM = "upstream.";
    static final String MAX_INPUT_BYTES = "max-input-bytes";
    static final String URL = "url";
    static final String ENDPOINT = "endpoint";
    static final String CREDENTIAL = "credential";
    static final String WRAPPER = "wrapper";
    static final String STATUS_TOOL = "status-tool";
    static final String SUCCESS_MEMBER = "success-member";
    static final String CONNECT_TIMEOUT_MS = "connect-timeout-ms";
    static final String RESPONSE_TIMEOUT_MS = "response-timeout-ms";

    /** An upstream name, a tool name (MCP allows letters, digits, {@code _ - .}). */
    static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
    static final Pattern TOOL = Pattern.compile("[A-Za-z0-9_.-]{1,128}");

    /** How the frozen input reaches the upstream tool (docs/contract.md, "MCP dispatch wrapper"). */
    enum Wrapper { EXPLICIT, PLAIN }

    /** One upstream MCP server. {@code credential} is the resolved bearer secret, or null. */
    record UpstreamSettings(String name, URI url, String endpoint, Wrapper wrapper, String statusTool,
            String successMember, Duration connectTimeout, Duration responseTimeout, String credential) {

        @Override
        public String toString() {
            return "UpstreamSettings[" + name + " " + url + endpoint + " " + wrapper + "]";
        }
    }

    static McpSettings from(ConnectorContext context, boolean resolveSecrets) {
        Map<String, UpstreamSettings> upstreams = new LinkedHashMap<>();
        for (String name : Settings.list(context, UPSTREAMS).stream().sorted().toList()) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("connector setting '" + UPSTREAMS + "': '" + name
                        + "' is not an upstream name (" + NAME.pattern() + ")");
            }
            String p = UPSTREAM + name + ".";
            URI url = url(p + URL, context.requiredSetting(p + URL));
            String endpoint = context.setting(p + ENDPOINT).map(String::strip).orElse("/mcp");
            if (!endpoint.startsWith("/")) {
                throw new IllegalArgumentException("connector setting '" + p + ENDPOINT + "' must start with /");
            }
            Wrapper wrapper = switch (context.setting(p + WRAPPER).map(String::strip).orElse("explicit")) {
                case "explicit" -> Wrapper.EXPLICIT;
                case "plain" -> Wrapper.PLAIN;
                default -> throw new IllegalArgumentException("connector setting '" + p + WRAPPER
                        + "' must be explicit or plain");
            };
            String statusTool = tool(context, p + STATUS_TOOL);
            String successMember = context.setting(p + SUCCESS_MEMBER).map(String::strip).filter(s -> !s.isEmpty())
                    .orElse(null);
            String credential = resolveSecrets ? Settings.secret(context, p + CREDENTIAL) : null;
            if (credential != null && credential.chars().anyMatch(c -> c < 0x21 || c == 0x7f)) {
                throw new IllegalArgumentException("connector setting '" + p + CREDENTIAL
                        + "': the secret holds spaces or control characters");
            }
            upstreams.put(name, new UpstreamSettings(name, url, endpoint, wrapper, statusTool, successMember,
                    Settings.millis(context, p + CONNECT_TIMEOUT_MS, 2_000),
                    Settings.millis(context, p + RESPONSE_TIMEOUT_MS, 30_000), credential));
        }
        if (upstreams.isEmpty()) {
            throw new IllegalArgumentException("connector setting '" + UPSTREAMS
                    + "' must name at least one upstream MCP server");
        }
        long max = Settings.longValue(context, MAX_INPUT_BYTES, 65_536);
        if (max < 1 || max > 1_048_576) {
            throw new IllegalArgumentException("connector setting '" + MAX_INPUT_BYTES + "' must be 1 to 1048576");
        }
        return new McpSettings(Map.copyOf(upstreams), (int) max);
    }

    Optional<UpstreamSettings> upstream(String name) {
        return Optional.ofNullable(upstreams.get(name));
    }

    private static String tool(ConnectorContext context, String key) {
        String value = context.setting(key).map(String::strip).filter(s -> !s.isEmpty()).orElse(null);
        if (value != null && !TOOL.matcher(value).matches()) {
            throw new IllegalArgumentException("connector setting '" + key + "' is not an MCP tool name");
        }
        return value;
    }

    private static URI url(String key, String raw) {
        URI uri;
        try {
            uri = URI.create(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("connector setting '" + key + "' is not a URL", e);
        }
        if (!("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) || uri.getHost() == null
                || uri.getRawUserInfo() != null || uri.getRawQuery() != null || uri.getRawFragment() != null
                || (uri.getRawPath() != null && !uri.getRawPath().isEmpty() && !uri.getRawPath().equals("/"))) {
            throw new IllegalArgumentException("connector setting '" + key
                    + "' must be an http(s) base URL without path, user info, query or fragment");
        }
        return URI.create(uri.getScheme() + "://" + uri.getRawAuthority());
    }
}
