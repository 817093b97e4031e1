package io.actiongate.approver;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.actiongate.approver.web.HttpLimits;
import io.actiongate.config.DurationParser;

/**
 * The approval service's settings, read from the same flat {@code key=value} map as every other role. It reads the
 * shared keys {@code bootstrap.servers}, {@code topic.prefix} and {@code kafka.*} (client pass-through), the
 * connectors' sender accounts ({@code connectors.smtp.from}, {@code connectors.webhook.base-url}) and its own
 * {@code approver.*} keys, each documented in the README. Anything missing or malformed fails at start with the
 * key's name (never a secret's value).
 */
public record ApproverConfig(
        String bootstrapServers,
        String topicPrefix,
        Map<String, String> kafkaClient,
        String bindAddress,
        int port,
        URI publicUrl,
        URI oidcIssuer,
        String oidcClientId,
        Optional<String> oidcClientSecret,
        String oidcOrgClaim,
        String oidcScopes,
        List<String> approvers,
        Path signingKeyFile,
        String signingKeyId,
        Duration decisionTtl,
        Duration challengeTtl,
        Duration sessionIdle,
        Duration sessionMax,
        Duration approvalWait,
        Duration enrolWindow,
        Map<String, String> senderAccounts,
        HttpLimits httpLimits,
        Optional<Path> stateKeyFile,
        io.actiongate.approver.web.IdpStepUp stepUp,
        String stateTopic) {

    public static final String PREFIX = "approver.";

    public static final String BIND_ADDRESS = "approver.http.bind.address";
    public static final String PORT = "approver.http.port";
    public static final String PUBLIC_URL = "approver.public.url";
    public static final String OIDC_ISSUER = "approver.oidc.issuer";
    public static final String OIDC_CLIENT_ID = "approver.oidc.client.id";
    public static final String OIDC_CLIENT_SECRET = "approver.oidc.client.secret";
    public static final String OIDC_ORG_CLAIM = "approver.oidc.org.claim";
    public static final String OIDC_SCOPES = "approver.oidc.scopes";
    public static final String APPROVERS = "approver.approvers";
    public static final String SIGNING_KEY_FILE = "approver.signing.key.file";
    public static final String SIGNING_KEY_ID = "approver.signing.key.id";
    public static final String DECISION_TTL = "approver.decision.ttl";
    public static final String CHALLENGE_TTL = "approver.challenge.ttl";
    public static final String SESSION_IDLE = "approver.session.idle";
    public static final String SESSION_MAX = "approver.session.max";
    public static final String APPROVAL_WAIT = "approver.approval.wait";
    public static final String ENROL_WINDOW = "approver.enrol.window";
    public static final String SENDER_PREFIX = "approver.sender.";
    public static final String STATE_KEY_FILE = "approver.state.key.file";
    public static final String STATE_TOPIC = "approver.state.topic";

    /** Every {@code approver.*} key this class reads (for documentation checks). */
    public static final List<String> KEYS = List.of(BIND_ADDRESS, PORT, PUBLIC_URL, OIDC_ISSUER, OIDC_CLIENT_ID,
            OIDC_CLIENT_SECRET, OIDC_ORG_CLAIM, OIDC_SCOPES, APPROVERS, SIGNING_KEY_FILE, SIGNING_KEY_ID,
            DECISION_TTL, CHALLENGE_TTL, SESSION_IDLE, SESSION_MAX, APPROVAL_WAIT, ENROL_WINDOW,
            SENDER_PREFIX + "<provider>", STATE_KEY_FILE, STATE_TOPIC, HttpLimits.THREADS_MAX, HttpLimits.QUEUE_MAX, HttpLimits.CONNECTIONS_MAX,
            HttpLimits.HEADER_TIMEOUT_MS, HttpLimits.BODY_TIMEOUT_MS, HttpLimits.IDLE_TIMEOUT_MS,
            io.actiongate.approver.web.IdpStepUp.MODE, io.actiongate.approver.web.IdpStepUp.ACR_VALUES,
            io.actiongate.approver.web.IdpStepUp.AMR, io.actiongate.approver.web.IdpStepUp.MAX_AGE_SECONDS);

    public ApproverConfig {
        kafkaClient = Map.copyOf(kafkaClient);
        approvers = List.copyOf(approvers);
        senderAccounts = Map.copyOf(senderAccounts);
    }

    /** The origin ({@code scheme://host[:port]}) that every form post must carry in its {@code Origin} header. */
    public String origin() {
        String scheme = publicUrl.getScheme().toLowerCase(Locale.ROOT);
        int p = publicUrl.getPort();
        boolean defaultPort = p == -1 || (scheme.equals("https") && p == 443) || (scheme.equals("http") && p == 80);
        return scheme + "://" + publicUrl.getHost().toLowerCase(Locale.ROOT) + (defaultPort ? "" : ":" + p);
    }

    /** The WebAuthn relying-party id: the public host name. */
    public String rpId() {
        return publicUrl.getHost().toLowerCase(Locale.ROOT);
    }

    /** The public URL with another port (when {@code approver.http.port=0} and the URL names port 0). */
    public ApproverConfig withPublicPort(int boundPort) {
        URI u = URI.create(publicUrl.getScheme() + "://" + publicUrl.getHost() + ":" + boundPort);
        return new ApproverConfig(bootstrapServers, topicPrefix, kafkaClient, bindAddress, port, u, oidcIssuer,
                oidcClientId, oidcClientSecret, oidcOrgClaim, oidcScopes, approvers, signingKeyFile, signingKeyId,
                decisionTtl, challengeTtl, sessionIdle, sessionMax, approvalWait, enrolWindow, senderAccounts,
                httpLimits, stateKeyFile, stepUp, stateTopic);
    }

    /** Reads the configuration; throws {@link IllegalArgumentException} naming the first bad key. */
    public static ApproverConfig from(Map<String, String> raw) {
        Map<String, String> c = new TreeMap<>(raw);
        String bootstrap = c.getOrDefault("bootstrap.servers", "127.0.0.1:9092");
        String prefix = c.getOrDefault("topic.prefix", "actiongate.");
        Map<String, String> kafka = new LinkedHashMap<>();
        c.forEach((k, v) -> {
            if (k.startsWith("kafka.")) {
                kafka.put(k.substring("kafka.".length()), v);
            }
        });
        URI publicUrl = url(c, PUBLIC_URL, required(c, PUBLIC_URL));
        String scheme = publicUrl.getScheme();
        if (!"https".equals(scheme) && !("http".equals(scheme) && isLoopbackName(publicUrl.getHost()))) {
            throw new IllegalArgumentException(PUBLIC_URL + " must be https (plain http only for localhost)");
        }
        String path = publicUrl.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException(PUBLIC_URL + " must be an origin without a path");
        }
        URI issuer = url(c, OIDC_ISSUER, required(c, OIDC_ISSUER));
        String keyId = required(c, SIGNING_KEY_ID);
        if (!keyId.matches("[A-Za-z0-9._-]{1,128}")) {
            throw new IllegalArgumentException(SIGNING_KEY_ID + " must match [A-Za-z0-9._-]{1,128}");
        }
        Map<String, String> senders = new TreeMap<>();
        Optional.ofNullable(c.get("connectors.smtp.from")).filter(s -> !s.isBlank())
                .ifPresent(v -> senders.put("smtp", v.strip()));
        Optional.ofNullable(c.get("connectors.webhook.base-url")).filter(s -> !s.isBlank())
                .ifPresent(v -> senders.put("webhook", v.strip()));
        c.forEach((k, v) -> {
            if (k.startsWith(SENDER_PREFIX) && !v.isBlank()) {
                senders.put(k.substring(SENDER_PREFIX.length()), v.strip());
            }
        });
        List<String> approvers = new ArrayList<>();
        for (String entry : c.getOrDefault(APPROVERS, "").split(",")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                continue;
            }
            int colon = e.indexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw new IllegalArgumentException(APPROVERS + ": an entry is org_id:subject (subject may be *)");
            }
            approvers.add(e);
        }
        return new ApproverConfig(bootstrap, prefix, kafka,
                c.getOrDefault(BIND_ADDRESS, "127.0.0.1"),
                port(c, PORT, 8443),
                publicUrl,
                issuer,
                required(c, OIDC_CLIENT_ID),
                Optional.ofNullable(c.get(OIDC_CLIENT_SECRET)).filter(s -> !s.isBlank()),
                c.getOrDefault(OIDC_ORG_CLAIM, "org"),
                c.getOrDefault(OIDC_SCOPES, "openid profile email"),
                approvers,
                Path.of(required(c, SIGNING_KEY_FILE)),
                keyId,
                duration(c, DECISION_TTL, Duration.ofMinutes(10)),
                duration(c, CHALLENGE_TTL, Duration.ofMinutes(5)),
                duration(c, SESSION_IDLE, Duration.ofMinutes(15)),
                duration(c, SESSION_MAX, Duration.ofHours(8)),
                duration(c, APPROVAL_WAIT, duration(c, "gate.approval.timeout", Duration.ofHours(24))),
                duration(c, ENROL_WINDOW, Duration.ofMinutes(5)),
                senders,
                HttpLimits.from(c),
                Optional.ofNullable(c.get(STATE_KEY_FILE)).filter(v -> !v.isBlank()).map(v -> Path.of(v.strip())),
                io.actiongate.approver.web.IdpStepUp.from(c),
                Optional.ofNullable(c.get(STATE_TOPIC)).filter(v -> !v.isBlank()).map(String::strip)
                        .orElse(prefix + "approver-state"));
    }

    private static boolean isLoopbackName(String host) {
        return "localhost".equalsIgnoreCase(host) || "127.0.0.1".equals(host) || "[::1]".equals(host);
    }

    private static String required(Map<String, String> c, String key) {
        String v = c.get(key);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(key + " is required");
        }
        return v.strip();
    }

    private static URI url(Map<String, String> c, String key, String value) {
        try {
            URI u = URI.create(value);
            if (u.getScheme() == null || u.getHost() == null || u.getRawUserInfo() != null || u.getRawQuery() != null
                    || u.getRawFragment() != null) {
                throw new IllegalArgumentException(key + " must be an absolute http(s) URL without user info, "
                        + "query or fragment");
            }
            String scheme = u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("https") && !scheme.equals("http")) {
                throw new IllegalArgumentException(key + " must be http(s)");
            }
            return u;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " is not a valid URL: " + e.getMessage(), e);
        }
    }

    private static int port(Map<String, String> c, String key, int dflt) {
        String v = c.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            int p = Integer.parseInt(v.strip());
            if (p < 0 || p > 65535) {
                throw new IllegalArgumentException(key + " must be 0..65535");
            }
            return p;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a port number", e);
        }
    }

    /**
     * A positive duration in the one syntax every role reads ({@link DurationParser}: {@code 500ms}, {@code 30s},
     * {@code 10m}, {@code 8h}, {@code 7d}, ISO-8601 or plain milliseconds), so a value the gate accepts for a shared
     * key such as {@code gate.approval.timeout} is one the approver accepts too.
     */
    static Duration duration(Map<String, String> c, String key, Duration dflt) {
        String v = c.get(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        Duration d;
        try {
            d = DurationParser.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
        }
        if (d.isZero()) {
            throw new IllegalArgumentException(key + " must be positive");
        }
        return d;
    }
}
