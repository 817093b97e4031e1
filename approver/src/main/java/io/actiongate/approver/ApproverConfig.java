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

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.approver.state.KafkaState;
import io.actiongate.approver.web.HttpLimits;
import io.actiongate.config.ConfigDefs;
import io.actiongate.config.DurationParser;
import io.actiongate.config.Validators;
import io.actiongate.topics.Topics;

/**
 * The approval service's settings, read from the same flat {@code key=value} map as every other role. It reads the
 * shared keys {@code bootstrap.servers}, {@code topic.prefix} and {@code kafka.*} (client pass-through), the
 * connectors' sender accounts ({@code connectors.smtp.from}, {@code connectors.webhook.base-url}) and its own
 * {@code approver.*} keys of {@link #CONFIG_DEF} (docs/configuration.md is generated from it). Anything missing or
 * malformed fails at start with the key's name (never a secret's value).
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
    public static final String BIND_ADDRESS_DOC = "Address the service binds to (TLS ends in front of it, at the "
            + "ingress).";
    public static final String PORT = "approver.http.port";
    public static final String PORT_DOC = "Port; 0 picks a free one.";
    public static final String PUBLIC_URL = "approver.public.url";
    public static final String PUBLIC_URL_DOC = "The origin people open, e.g. https://approve.acme.example (https; "
            + "plain http only for localhost); also the WebAuthn RP id and the Origin every post must carry. Port 0 "
            + "with approver.http.port=0 takes the bound port.";
    public static final String OIDC_ISSUER = "approver.oidc.issuer";
    public static final String OIDC_ISSUER_DOC = "The IdP's issuer URL (/.well-known/openid-configuration is read "
            + "from it).";
    public static final String OIDC_CLIENT_ID = "approver.oidc.client.id";
    public static final String OIDC_CLIENT_ID_DOC = "This service's client id at the IdP; the redirect URI is "
            + "{approver.public.url}/oidc/callback.";
    public static final String OIDC_CLIENT_SECRET = "approver.oidc.client.secret";
    public static final String OIDC_CLIENT_SECRET_DOC = "Client secret (client_secret_basic) for confidential "
            + "clients; without it the client is public and PKCE alone binds the code.";
    public static final String OIDC_ORG_CLAIM = "approver.oidc.org.claim";
    public static final String OIDC_ORG_CLAIM_DOC = "ID-token claim holding the person's organisation (one string, "
            + "or a list of exactly one).";
    public static final String OIDC_SCOPES = "approver.oidc.scopes";
    public static final String OIDC_SCOPES_DOC = "Scopes requested.";
    public static final String APPROVERS = "approver.approvers";
    public static final String APPROVERS_DOC = "Who may decide: org_id:subject entries (subject * for anyone of the "
            + "org), comma separated; the person's org must always equal the action's org_id; empty means any subject "
            + "of that org. Keep it equal to gate.approvers.";
    public static final String SIGNING_KEY_FILE = "approver.signing.key.file";
    public static final String SIGNING_KEY_FILE_DOC = "The service's Ed25519 private key, PKCS#8 PEM as 'actiongate "
            + "keys generate' writes it (a mounted secret).";
    public static final String SIGNING_KEY_ID = "approver.signing.key.id";
    public static final String SIGNING_KEY_ID_DOC = "Its key_id; the public half must be in the gate's "
            + "gate.trusted.keys.dir under this name.";
    public static final String DECISION_TTL = "approver.decision.ttl";
    public static final String DECISION_TTL_DOC = "expires_at - issued_at of each decision.";
    public static final String CHALLENGE_TTL = "approver.challenge.ttl";
    public static final String CHALLENGE_TTL_DOC = "How long a review form can be posted.";
    public static final String SESSION_IDLE = "approver.session.idle";
    public static final String SESSION_IDLE_DOC = "A session ends after this long without a request.";
    public static final String SESSION_MAX = "approver.session.max";
    public static final String SESSION_MAX_DOC = "A session ends this long after sign-in at the latest.";
    public static final String APPROVAL_WAIT = "approver.approval.wait";
    public static final String APPROVAL_WAIT_DOC = "Used for the 'time left' shown in the queue. Unset: "
            + "gate.approval.timeout, else 24h.";
    public static final String ENROL_WINDOW = "approver.enrol.window";
    public static final String ENROL_WINDOW_DOC = "A first passkey or TOTP app can be added only this soon after "
            + "signing in; once a person has a factor, adding or replacing one only this soon after a step-up with it.";
    public static final String SENDER_PREFIX = "approver.sender.";
    public static final String SENDER_DOC = "The account a provider sends from, as the page shows it; a provider "
            + "without one cannot be approved here. Default: connectors.smtp.from for smtp, "
            + "connectors.webhook.base-url for webhook.";
    public static final String STATE_KEY_FILE = "approver.state.key.file";
    public static final String STATE_KEY_FILE_DOC = "The sealing keys of sessions, login cookies and TOTP secrets: "
            + "id=base64url(32 bytes) lines, the first one current (a mounted secret; same file on every replica). "
            + "Unset: a key of the process, one replica only.";
    public static final String STATE_TOPIC = "approver.state.topic";
    public static final String STATE_TOPIC_DOC = "The approval service's own compacted state topic (created on start "
            + "if missing). Unset: {topic.prefix}approver-state.";

    /** Connector keys the approver reads for the sender accounts it shows. */
    public static final String SMTP_FROM_CONFIG = "connectors.smtp.from";
    public static final String SMTP_FROM_DOC = "Read by the approver too: the sender account it shows for smtp "
            + "(unless approver.sender.smtp is set).";
    public static final String WEBHOOK_BASE_URL_CONFIG = "connectors.webhook.base-url";
    public static final String WEBHOOK_BASE_URL_DOC = "Read by the approver too: the sender account it shows for "
            + "webhook (unless approver.sender.webhook is set).";
    /** The gate's key the approver falls back to for {@link #APPROVAL_WAIT} (defined in the gate's ConfigDef). */
    static final String GATE_APPROVAL_TIMEOUT = "gate.approval.timeout";

    private static final Duration ONE_MS = Duration.ofMillis(1);
    private static final Duration TEN_YEARS = Duration.ofDays(3650);

    /** The {@code approver.*} keys (and the two connector keys it reads), with the HTTP limits and step-up keys. */
    public static final ConfigDef CONFIG_DEF = configDef();

    /** Keys whose last part is a name ({@code approver.sender.<provider>}), for the configuration reference. */
    public static final ConfigDef NAMED_KEYS_DEF = new ConfigDef()
            .define(SENDER_PREFIX + "<provider>", Type.STRING, null, Importance.LOW, SENDER_DOC);

    /** Every {@code approver.*} key this class reads (for documentation checks). */
    public static final List<String> KEYS = java.util.stream.Stream.concat(
            CONFIG_DEF.names().stream().filter(k -> k.startsWith(PREFIX)).sorted(),
            java.util.stream.Stream.of(SENDER_PREFIX + "<provider>")).toList();

    private static ConfigDef configDef() {
        ConfigDef def = new ConfigDef()
                .define(BIND_ADDRESS, Type.STRING, "127.0.0.1", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                        BIND_ADDRESS_DOC)
                .define(PORT, Type.INT, 8443, ConfigDef.Range.between(0, 65_535), Importance.MEDIUM, PORT_DOC)
                .define(PUBLIC_URL, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, PUBLIC_URL_DOC)
                .define(OIDC_ISSUER, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, OIDC_ISSUER_DOC)
                .define(OIDC_CLIENT_ID, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH, OIDC_CLIENT_ID_DOC)
                .define(OIDC_CLIENT_SECRET, Type.PASSWORD, null, Importance.MEDIUM, OIDC_CLIENT_SECRET_DOC)
                .define(OIDC_ORG_CLAIM, Type.STRING, "org", Importance.MEDIUM, OIDC_ORG_CLAIM_DOC)
                .define(OIDC_SCOPES, Type.STRING, "openid profile email", Importance.LOW, OIDC_SCOPES_DOC)
                .define(APPROVERS, Type.STRING, "", Importance.HIGH, APPROVERS_DOC)
                .define(SIGNING_KEY_FILE, Type.STRING, ConfigDef.NO_DEFAULT_VALUE, Importance.HIGH,
                        SIGNING_KEY_FILE_DOC)
                .define(SIGNING_KEY_ID, Type.STRING, ConfigDef.NO_DEFAULT_VALUE,
                        Validators.matching("[A-Za-z0-9._-]{1,128}"), Importance.HIGH, SIGNING_KEY_ID_DOC)
                .define(DECISION_TTL, Type.STRING, "10m", DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.MEDIUM, DECISION_TTL_DOC)
                .define(CHALLENGE_TTL, Type.STRING, "5m", DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.LOW, CHALLENGE_TTL_DOC)
                .define(SESSION_IDLE, Type.STRING, "15m", DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.MEDIUM, SESSION_IDLE_DOC)
                .define(SESSION_MAX, Type.STRING, "8h", DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.MEDIUM, SESSION_MAX_DOC)
                .define(APPROVAL_WAIT, Type.STRING, null, DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.LOW, APPROVAL_WAIT_DOC)
                .define(ENROL_WINDOW, Type.STRING, "5m", DurationParser.between(ONE_MS, TEN_YEARS),
                        Importance.LOW, ENROL_WINDOW_DOC)
                .define(STATE_KEY_FILE, Type.STRING, "", Importance.HIGH, STATE_KEY_FILE_DOC)
                .define(STATE_TOPIC, Type.STRING, "", Importance.LOW, STATE_TOPIC_DOC)
                .define(SMTP_FROM_CONFIG, Type.STRING, "", Importance.LOW, SMTP_FROM_DOC)
                .define(WEBHOOK_BASE_URL_CONFIG, Type.STRING, "", Importance.LOW, WEBHOOK_BASE_URL_DOC);
        HttpLimits.CONFIG_DEF.configKeys().values().forEach(def::define);
        io.actiongate.approver.web.IdpStepUp.CONFIG_DEF.configKeys().values().forEach(def::define);
        return def;
    }

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
        Map<String, String> c = raw;
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, c);
        String bootstrap = c.getOrDefault("bootstrap.servers", "127.0.0.1:9092");
        String prefix = c.getOrDefault("topic.prefix", Topics.DEFAULT_PREFIX);
        Map<String, String> kafka = new LinkedHashMap<>();
        c.forEach((k, value) -> {
            if (k.startsWith("kafka.")) {
                kafka.put(k.substring("kafka.".length()), value);
            }
        });
        URI publicUrl = url(PUBLIC_URL, (String) v.get(PUBLIC_URL));
        String scheme = publicUrl.getScheme();
        if (!"https".equals(scheme) && !("http".equals(scheme) && isLoopbackName(publicUrl.getHost()))) {
            throw new IllegalArgumentException(PUBLIC_URL + " must be https (plain http only for localhost)");
        }
        String path = publicUrl.getRawPath();
        if (path != null && !path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException(PUBLIC_URL + " must be an origin without a path");
        }
        URI issuer = url(OIDC_ISSUER, (String) v.get(OIDC_ISSUER));
        Map<String, String> senders = new TreeMap<>();
        Optional.ofNullable((String) v.get(SMTP_FROM_CONFIG)).filter(s -> !s.isBlank())
                .ifPresent(s -> senders.put("smtp", s.strip()));
        Optional.ofNullable((String) v.get(WEBHOOK_BASE_URL_CONFIG)).filter(s -> !s.isBlank())
                .ifPresent(s -> senders.put("webhook", s.strip()));
        c.forEach((k, s) -> {
            if (k.startsWith(SENDER_PREFIX) && !s.isBlank()) {
                senders.put(k.substring(SENDER_PREFIX.length()), s.strip());
            }
        });
        List<String> approvers = new ArrayList<>();
        for (String entry : ((String) v.get(APPROVERS)).split(",")) {
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
        String approvalWait = (String) v.get(APPROVAL_WAIT);
        String stateKeyFile = (String) v.get(STATE_KEY_FILE);
        String stateTopic = (String) v.get(STATE_TOPIC);
        return new ApproverConfig(bootstrap, prefix, kafka,
                (String) v.get(BIND_ADDRESS),
                (Integer) v.get(PORT),
                publicUrl,
                issuer,
                (String) v.get(OIDC_CLIENT_ID),
                Optional.ofNullable(ConfigDefs.password(v, OIDC_CLIENT_SECRET)).filter(s -> !s.isBlank()),
                (String) v.get(OIDC_ORG_CLAIM),
                (String) v.get(OIDC_SCOPES),
                approvers,
                Path.of((String) v.get(SIGNING_KEY_FILE)),
                (String) v.get(SIGNING_KEY_ID),
                DurationParser.parse((String) v.get(DECISION_TTL)),
                DurationParser.parse((String) v.get(CHALLENGE_TTL)),
                DurationParser.parse((String) v.get(SESSION_IDLE)),
                DurationParser.parse((String) v.get(SESSION_MAX)),
                approvalWait != null ? DurationParser.parse(approvalWait)
                        : duration(c, GATE_APPROVAL_TIMEOUT, Duration.ofHours(24)),
                DurationParser.parse((String) v.get(ENROL_WINDOW)),
                senders,
                HttpLimits.from(c),
                stateKeyFile.isEmpty() ? Optional.empty() : Optional.of(Path.of(stateKeyFile)),
                io.actiongate.approver.web.IdpStepUp.from(c),
                stateTopic.isEmpty() ? KafkaState.defaultTopic(prefix) : stateTopic);
    }

    private static boolean isLoopbackName(String host) {
        return "localhost".equalsIgnoreCase(host) || "127.0.0.1".equals(host) || "[::1]".equals(host);
    }

    private static URI url(String key, String value) {
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
