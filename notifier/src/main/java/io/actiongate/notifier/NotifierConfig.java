package io.actiongate.notifier;

import java.lang.management.ManagementFactory;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;

import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

import io.actiongate.config.ConfigDefs;
import io.actiongate.config.DurationParser;
import io.actiongate.config.Validators;
import io.actiongate.secrets.SecretReference;

/**
 * The notifier's settings (role {@code notifier}), read from the same flat map as every other role: the shared keys
 * {@code bootstrap.servers}, {@code topic.prefix} and {@code kafka.*}, the review page ({@code notifier.review.url}, or
 * {@code approver.public.url}), the approval timeout ({@code gate.approval.timeout} unless {@code notifier.approval.wait}
 * is set), its own {@code notifier.*} keys of {@link #CONFIG_DEF} and the named destinations of
 * {@link #NAMED_KEYS_DEF}. Every credential is a secret reference, resolved here once; a bad value fails at start
 * naming the key, never a secret.
 *
 * @param slack     Slack-compatible incoming webhooks by the name a route uses; the URLs are secrets
 * @param webhooks  generic JSON webhooks by name
 * @param smtp      the smtp connector's settings for email (without the prefix), empty when email is off
 */
public record NotifierConfig(
        String bootstrapServers,
        String topicPrefix,
        Map<String, String> kafkaClient,
        String reviewUrl,
        Duration approvalWait,
        Duration reminderBefore,
        Duration checkInterval,
        int sendThreads,
        Duration unconfirmedAfter,
        String stateTopic,
        Duration stateRetention,
        String instanceId,
        Duration connectTimeout,
        Duration responseTimeout,
        Map<String, SlackWebhook> slack,
        Map<String, JsonWebhook> webhooks,
        Map<String, String> smtp) {

    public static final String PREFIX = "notifier.";

    public static final String REVIEW_URL = "notifier.review.url";
    public static final String REVIEW_URL_DOC = "The review page a notice links to: {task_id} and {tool_call_id} are "
            + "filled in (https; plain http only for localhost). Default: approver.public.url + "
            + "/review/{task_id}/{tool_call_id}; one of the two must be set.";
    public static final String APPROVAL_WAIT = "notifier.approval.wait";
    public static final String APPROVAL_WAIT_DOC = "How long an action waits for approval: its deadline is the "
            + "WAITING_APPROVAL receipt's updated_at plus this. Unset: gate.approval.timeout, else 24h.";
    public static final String REMINDER_BEFORE = "notifier.reminder.before";
    public static final String REMINDER_BEFORE_DOC = "When the reminder goes, before the deadline, for a route without "
            + "remind_before_ms. 0: no reminder. A reminder goes only if the first notice went before its time.";
    public static final String CHECK_INTERVAL = "notifier.check.interval";
    public static final String CHECK_INTERVAL_DOC = "How often the waiting actions are checked for a notice that is "
            + "due: a notice goes at most this late.";
    public static final String SEND_THREADS = "notifier.send.threads";
    public static final String SEND_THREADS_DOC = "Notices sent at once (each sends its messages one after another).";
    public static final String UNCONFIRMED_AFTER = "notifier.unconfirmed.after";
    public static final String UNCONFIRMED_AFTER_DOC = "A notice claimed this long ago without a recorded result is "
            + "reported as unconfirmed (WARN, actiongate_notifier_unconfirmed_notices): its instance stopped between "
            + "the claim and the last message, and it is never sent again. Keep it above the longest send (every "
            + "destination's timeouts together).";
    public static final String STATE_TOPIC = "notifier.state.topic";
    public static final String STATE_TOPIC_DOC = "The notifier's own topic of claims and results (one partition, "
            + "created on start if missing). Unset: {topic.prefix}notifier-state.";
    public static final String STATE_RETENTION = "notifier.state.retention";
    public static final String STATE_RETENTION_DOC = "How long claims are kept (the topic's retention.ms when the "
            + "notifier creates it); must exceed the approval wait, or a notice could go twice.";
    public static final String INSTANCE_ID = "notifier.instance.id";
    public static final String INSTANCE_ID_DOC = "This instance's name in its claims and logs. Unset: "
            + "notifier-<pid@host>.";
    public static final String CONNECT_TIMEOUT = "notifier.http.connect.timeout.ms";
    public static final String CONNECT_TIMEOUT_DOC = "TCP connect timeout of a webhook post.";
    public static final String RESPONSE_TIMEOUT = "notifier.http.response.timeout.ms";
    public static final String RESPONSE_TIMEOUT_DOC = "Time a webhook has to answer a post.";

    public static final String SLACK_PREFIX = "notifier.slack.";
    public static final String WEBHOOK_PREFIX = "notifier.webhook.";
    public static final String SMTP_PREFIX = "notifier.smtp.";
    static final String URL = "url";
    static final String CREDENTIAL = "credential";
    static final String CREDENTIAL_HEADER = "credential-header";

    /** The approver's key the review page defaults to, and the gate's the approval wait does. */
    static final String APPROVER_PUBLIC_URL = "approver.public.url";
    static final String GATE_APPROVAL_TIMEOUT = "gate.approval.timeout";

    private static final Duration TEN_YEARS = Duration.ofDays(3650);
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    public static final ConfigDef CONFIG_DEF = new ConfigDef()
            .define(REVIEW_URL, Type.STRING, "", Importance.HIGH, REVIEW_URL_DOC)
            .define(APPROVAL_WAIT, Type.STRING, null, DurationParser.between(Duration.ofMillis(1), TEN_YEARS),
                    Importance.MEDIUM, APPROVAL_WAIT_DOC)
            .define(REMINDER_BEFORE, Type.STRING, "1h", DurationParser.between(Duration.ZERO, TEN_YEARS),
                    Importance.MEDIUM, REMINDER_BEFORE_DOC)
            .define(CHECK_INTERVAL, Type.STRING, "1s",
                    DurationParser.between(Duration.ofMillis(10), Duration.ofMinutes(1)), Importance.LOW,
                    CHECK_INTERVAL_DOC)
            .define(SEND_THREADS, Type.INT, 4, ConfigDef.Range.between(1, 64), Importance.LOW, SEND_THREADS_DOC)
            .define(UNCONFIRMED_AFTER, Type.STRING, "5m",
                    DurationParser.between(Duration.ofSeconds(1), Duration.ofDays(1)), Importance.LOW,
                    UNCONFIRMED_AFTER_DOC)
            .define(STATE_TOPIC, Type.STRING, "", Importance.LOW, STATE_TOPIC_DOC)
            .define(STATE_RETENTION, Type.STRING, "7d", DurationParser.between(Duration.ofHours(1), TEN_YEARS),
                    Importance.LOW, STATE_RETENTION_DOC)
            .define(INSTANCE_ID, Type.STRING, "", instanceIdValidator(), Importance.LOW, INSTANCE_ID_DOC)
            .define(CONNECT_TIMEOUT, Type.INT, 2_000, ConfigDef.Range.between(1, 60_000), Importance.LOW,
                    CONNECT_TIMEOUT_DOC)
            .define(RESPONSE_TIMEOUT, Type.INT, 10_000, ConfigDef.Range.between(1, 300_000), Importance.LOW,
                    RESPONSE_TIMEOUT_DOC);

    private static ConfigDef.Validator instanceIdValidator() {
        ConfigDef.Validator pattern = Validators.matching("[A-Za-z0-9._@:-]{1,128}");
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                if (value != null && !((String) value).isBlank()) {
                    pattern.ensureValid(name, ((String) value).strip());
                }
            }

            @Override
            public String toString() {
                return "empty, or " + pattern;
            }
        };
    }

    /** Keys whose middle part is a name a route uses, or a setting of the smtp connector. */
    public static final ConfigDef NAMED_KEYS_DEF = new ConfigDef()
            .define(SLACK_PREFIX + "<name>." + URL, Type.STRING, null, Importance.HIGH, "A Slack-compatible "
                    + "incoming webhook that routes name <name> (slack_webhooks): a secret reference, env:NAME or "
                    + "file:PATH, to its URL (the URL is its credential).")
            .define(WEBHOOK_PREFIX + "<name>." + URL, Type.STRING, null, Importance.HIGH, "A generic JSON webhook "
                    + "that routes name <name> (json_webhooks): its URL (https; plain http only for localhost), "
                    + "without user info, query or fragment.")
            .define(WEBHOOK_PREFIX + "<name>." + CREDENTIAL, Type.STRING, null, Importance.MEDIUM, "Its credential, "
                    + "a secret reference: sent as Authorization: Bearer <secret>, or as is under credential-header.")
            .define(WEBHOOK_PREFIX + "<name>." + CREDENTIAL_HEADER, Type.STRING, "Authorization", Importance.LOW,
                    "The header the credential goes in.")
            .define(SMTP_PREFIX + "<setting>", Type.STRING, null, Importance.MEDIUM, "Email: the smtp connector's "
                    + "settings (connectors/README.md: host, port, from, username, password as a secret reference, "
                    + "starttls, connect-timeout-ms, timeout-ms, allowed-domains, message-id-domain) under this prefix. "
                    + "A route's address outside allowed-domains is not mailed. Without notifier.smtp.host no email "
                    + "is sent.");

    /** A Slack-compatible incoming webhook; {@link #toString()} never shows its URL. */
    public record SlackWebhook(String name, URI url) {
        @Override
        public String toString() {
            return "SlackWebhook[" + name + ", url=[redacted]]";
        }
    }

    /** A generic JSON webhook: its URL and, if any, the header and value that carry its credential. */
    public record JsonWebhook(String name, URI url, String credentialHeader, String credentialValue) {
        @Override
        public String toString() {
            return "JsonWebhook[" + name + ", " + url + ", credential=" + (credentialValue == null ? "none"
                    : credentialHeader + "=[redacted]") + "]";
        }
    }

    public NotifierConfig {
        kafkaClient = Map.copyOf(kafkaClient);
        slack = Map.copyOf(slack);
        webhooks = Map.copyOf(webhooks);
        smtp = Map.copyOf(smtp);
    }

    /** Reads the configuration; {@code IllegalArgumentException} naming the first bad key. */
    public static NotifierConfig from(Map<String, String> raw) {
        return from(raw, System.getenv());
    }

    static NotifierConfig from(Map<String, String> raw, Map<String, String> environment) {
        Map<String, Object> v = ConfigDefs.parse(CONFIG_DEF, raw);
        String bootstrap = raw.getOrDefault("bootstrap.servers", "127.0.0.1:9092");
        String prefix = raw.getOrDefault("topic.prefix", "actiongate.");
        Map<String, String> kafka = new TreeMap<>();
        Map<String, Map<String, String>> slack = new TreeMap<>();
        Map<String, Map<String, String>> hooks = new TreeMap<>();
        Map<String, String> smtp = new TreeMap<>();
        raw.forEach((k, value) -> {
            if (k.startsWith("kafka.")) {
                kafka.put(k.substring("kafka.".length()), value);
            } else if (k.startsWith(SLACK_PREFIX)) {
                named(slack, k, SLACK_PREFIX, value);
            } else if (k.startsWith(WEBHOOK_PREFIX)) {
                named(hooks, k, WEBHOOK_PREFIX, value);
            } else if (k.startsWith(SMTP_PREFIX) && value != null && !value.isBlank()) {
                smtp.put(k.substring(SMTP_PREFIX.length()), value.strip());
            }
        });
        Map<String, SlackWebhook> slackHooks = new TreeMap<>();
        slack.forEach((name, settings) -> slackHooks.put(name, slack(name, settings, environment)));
        Map<String, JsonWebhook> jsonHooks = new TreeMap<>();
        hooks.forEach((name, settings) -> jsonHooks.put(name, webhook(name, settings, environment)));
        if (!smtp.isEmpty() && !smtp.containsKey("host")) {
            throw new IllegalArgumentException(SMTP_PREFIX + "host is required once any " + SMTP_PREFIX
                    + "* key is set");
        }

        String approvalWaitText = (String) v.get(APPROVAL_WAIT);
        Duration approvalWait = approvalWaitText != null ? DurationParser.parse(approvalWaitText)
                : gateApprovalTimeout(raw);
        Duration retention = DurationParser.parse((String) v.get(STATE_RETENTION));
        if (retention.compareTo(approvalWait) <= 0) {
            throw new IllegalArgumentException(STATE_RETENTION + " (" + retention + ") must exceed the approval wait ("
                    + approvalWait + "): a claim forgotten while its action still waits could be sent again");
        }
        String stateTopic = (String) v.get(STATE_TOPIC);
        String instance = (String) v.get(INSTANCE_ID);
        return new NotifierConfig(bootstrap, prefix, kafka,
                reviewTemplate((String) v.get(REVIEW_URL), raw.get(APPROVER_PUBLIC_URL)),
                approvalWait,
                DurationParser.parse((String) v.get(REMINDER_BEFORE)),
                DurationParser.parse((String) v.get(CHECK_INTERVAL)),
                (Integer) v.get(SEND_THREADS),
                DurationParser.parse((String) v.get(UNCONFIRMED_AFTER)),
                stateTopic.isBlank() ? defaultStateTopic(prefix) : stateTopic.strip(),
                retention,
                instance.isBlank() ? "notifier-" + ManagementFactory.getRuntimeMXBean().getName() : instance.strip(),
                Duration.ofMillis((Integer) v.get(CONNECT_TIMEOUT)),
                Duration.ofMillis((Integer) v.get(RESPONSE_TIMEOUT)),
                slackHooks, jsonHooks, smtp);
    }

    /** The state topic's name under a topic prefix, unless {@value #STATE_TOPIC} names another. */
    public static String defaultStateTopic(String topicPrefix) {
        return topicPrefix + "notifier-state";
    }

    /** This configuration with the review page of an approval service bound in the same process. */
    public NotifierConfig withReviewUrl(String url) {
        return new NotifierConfig(bootstrapServers, topicPrefix, kafkaClient, url, approvalWait, reminderBefore,
                checkInterval, sendThreads, unconfirmedAfter, stateTopic, stateRetention, instanceId, connectTimeout,
                responseTimeout, slack, webhooks, smtp);
    }

    /** The review URL of {@code origin} (an approval service's public URL). */
    public static String reviewUrlOf(URI origin) {
        String o = origin.toString();
        return (o.endsWith("/") ? o.substring(0, o.length() - 1) : o) + "/review/{task_id}/{tool_call_id}";
    }

    /** Whether the review URL still names port 0 (an approver in this process binds it first). */
    public boolean reviewUrlUnbound() {
        return URI.create(reviewUrl.replace("{task_id}", "t").replace("{tool_call_id}", "c")).getPort() == 0;
    }

    private static void named(Map<String, Map<String, String>> into, String key, String prefix, String value) {
        String rest = key.substring(prefix.length());
        int dot = rest.indexOf('.');
        String name = dot < 0 ? rest : rest.substring(0, dot);
        String setting = dot < 0 ? "" : rest.substring(dot + 1);
        if (!NAME.matcher(name).matches() || setting.isEmpty()) {
            throw new IllegalArgumentException(key + ": expected " + prefix + "<name>.<setting> with a name of "
                    + "letters, digits, . _ - (the name routes use)");
        }
        into.computeIfAbsent(name, n -> new TreeMap<>()).put(setting, value == null ? "" : value.strip());
    }

    private static SlackWebhook slack(String name, Map<String, String> settings, Map<String, String> environment) {
        String key = SLACK_PREFIX + name + "." + URL;
        only(settings, SLACK_PREFIX + name + ".", List.of(URL));
        String reference = SecretReference.requireReference(key, settings.get(URL));
        if (reference == null) {
            throw new IllegalArgumentException(key + " is required: a secret reference to the webhook's URL");
        }
        return new SlackWebhook(name, url(key, SecretReference.resolve(key, reference, environment), true));
    }

    private static JsonWebhook webhook(String name, Map<String, String> settings, Map<String, String> environment) {
        String base = WEBHOOK_PREFIX + name + ".";
        only(settings, base, List.of(URL, CREDENTIAL, CREDENTIAL_HEADER));
        String raw = settings.get(URL);
        if (raw == null || raw.isBlank()) {
            throw new IllegalArgumentException(base + URL + " is required");
        }
        URI url = url(base + URL, raw, false);
        String reference = SecretReference.requireReference(base + CREDENTIAL, settings.get(CREDENTIAL));
        if (reference == null) {
            return new JsonWebhook(name, url, null, null);
        }
        String secret = SecretReference.resolve(base + CREDENTIAL, reference, environment);
        if (secret.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            throw new IllegalArgumentException(base + CREDENTIAL + ": the secret holds control characters");
        }
        String header = settings.getOrDefault(CREDENTIAL_HEADER, "");
        header = header.isBlank() ? "Authorization" : header;
        if (!header.matches("[A-Za-z0-9-]{1,64}")) {
            throw new IllegalArgumentException(base + CREDENTIAL_HEADER + " is not a header name");
        }
        boolean bearer = header.equalsIgnoreCase("Authorization");
        return new JsonWebhook(name, url, header, bearer ? "Bearer " + secret : secret);
    }

    private static void only(Map<String, String> settings, String base, List<String> known) {
        for (String setting : settings.keySet()) {
            if (!known.contains(setting)) {
                throw new IllegalArgumentException(base + setting + " is not a setting (one of " + known + ")");
            }
        }
    }

    /**
     * An http(s) URL without user info or fragment: https, or http to a loopback host. A secret URL (a Slack
     * webhook's) may carry a query, and no error shows it.
     */
    static URI url(String key, String raw, boolean secret) {
        URI u;
        try {
            u = URI.create(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + " is not a URL");
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (u.getHost() == null || u.getRawUserInfo() != null || u.getRawFragment() != null
                || (!secret && u.getRawQuery() != null)) {
            throw new IllegalArgumentException(key + " must be an absolute http(s) URL without user info"
                    + (secret ? "" : ", query") + " or fragment");
        }
        if (!scheme.equals("https") && !(scheme.equals("http") && loopback(u.getHost()))) {
            throw new IllegalArgumentException(key + " must be https (plain http only for localhost)");
        }
        return u;
    }

    private static boolean loopback(String host) {
        return host.equalsIgnoreCase("localhost") || host.startsWith("127.") || host.equals("[::1]");
    }

    private static String reviewTemplate(String configured, String approverPublicUrl) {
        String template;
        if (configured != null && !configured.isBlank()) {
            template = configured.strip();
        } else if (approverPublicUrl != null && !approverPublicUrl.isBlank()) {
            template = reviewUrlOf(URI.create(approverPublicUrl.strip()));
        } else {
            throw new IllegalArgumentException(REVIEW_URL + " or " + APPROVER_PUBLIC_URL + " must be set: a notice "
                    + "is a link to the review page");
        }
        if (!template.contains("{task_id}") || !template.contains("{tool_call_id}")) {
            throw new IllegalArgumentException(REVIEW_URL + " must hold {task_id} and {tool_call_id}");
        }
        url(REVIEW_URL, template.replace("{task_id}", "t").replace("{tool_call_id}", "c"), false);
        return template;
    }

    private static Duration gateApprovalTimeout(Map<String, String> raw) {
        String text = raw.get(GATE_APPROVAL_TIMEOUT);
        if (text == null || text.isBlank()) {
            return Duration.ofHours(24);
        }
        try {
            Duration d = DurationParser.parse(text);
            if (d.isZero() || d.isNegative()) {
                throw new IllegalArgumentException("must be positive");
            }
            return d;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(GATE_APPROVAL_TIMEOUT + ": " + e.getMessage(), e);
        }
    }

    /** The review page of an action: the template with its ids filled in (ids of the id alphabet need no escaping). */
    public String reviewPage(String taskId, String toolCallId) {
        return reviewUrl.replace("{task_id}", taskId).replace("{tool_call_id}", toolCallId);
    }

    /** Whether email is configured ({@code notifier.smtp.host}). */
    public Optional<Map<String, String>> email() {
        return smtp.isEmpty() ? Optional.empty() : Optional.of(smtp);
    }

    @Override
    public String toString() {
        return "NotifierConfig[" + bootstrapServers + ", " + stateTopic + ", review " + reviewUrl + ", slack "
                + slack.keySet() + ", webhooks " + webhooks.keySet() + ", smtp " + (smtp.isEmpty() ? "off" : "on")
                + "]";
    }
}
