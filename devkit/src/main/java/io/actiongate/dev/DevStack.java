package io.actiongate.dev;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

import io.actiongate.approver.ApproverConfig;
import io.actiongate.approver.ApproverService;
import io.actiongate.avro.PolicyRecord;
import io.actiongate.cli.commands.PolicyJson;
import io.actiongate.gate.GateConfig;
import io.actiongate.http.HttpServerConfig;
import io.actiongate.http.ProposalApiConfig;
import io.actiongate.kafka.KafkaClients;
import io.actiongate.key.ActionKey;
import io.actiongate.keyfiles.KeyFiles;
import io.actiongate.node.ActiongateNode;
import io.actiongate.node.Role;
import io.actiongate.notifier.NotifierConfig;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;
import io.actiongate.topics.Topics;

/**
 * Everything {@code actiongate dev} runs beside the broker: the sandbox providers, a demo approver key that the gate
 * trusts, the demo policy, an in-process identity provider ({@link DevIdentityProvider}), and one
 * {@link ActiongateNode} with the gate, executor, reconciler, approval service and notifier, whose connectors point at the
 * sandboxes (the notifier tells the demo's reviewers through the sandbox chat webhook and mailbox) (and, for the cli connector, at the stand-in kubectl and gh of {@link DevCliTools}). Settings from the user's configuration win over the dev defaults set here.
 */
public final class DevStack implements DevComponent {

    public static final String APPROVER_KEY_ID = "demo-approver";
    public static final String APPROVER_SUBJECT = "alice@demo";

    /** The task and call id of the summary email {@code dev} leaves waiting for approval. */
    public static final String DEMO_TASK = "T-1";
    public static final String DEMO_EMAIL_CALL = "demo-email-1";

    private final Map<String, String> overrides;
    private final boolean proposeDemoEmail;
    private volatile Sandboxes sandboxes;
    private volatile SandboxObjectStore objectStore;
    private volatile Path storageConfigFile;
    private volatile ActiongateNode node;
    private volatile DevIdentityProvider identityProvider;
    private volatile String lifecycleNote;
    private volatile java.util.concurrent.ScheduledExecutorService mailboxWatch;
    private volatile Path approverKey;
    private volatile Path tokenFile;
    private volatile Map<String, String> effectiveConfig;

    /**
     * @param overrides        settings applied after the dev defaults (the demo uses port 0 for HTTP, say)
     * @param proposeDemoEmail leave the demo summary email ({@link #DEMO_TASK}/{@link #DEMO_EMAIL_CALL}) waiting
     *                         for approval, for a person to approve on the approval page ({@code dev} does)
     */
    public DevStack(Map<String, String> overrides, boolean proposeDemoEmail) {
        this.overrides = Map.copyOf(overrides);
        this.proposeDemoEmail = proposeDemoEmail;
    }

    @Override
    public String name() {
        return "actiongate (gate, executor, reconciler, approval service, notifier, identity provider, sandboxes)";
    }

    @Override
    public AutoCloseable start(DevContext context) throws Exception {
        Path work = context.workDir();
        // the gate trusts every public key in keys/trusted; the approver's private key stays apart from them
        Path keys = Files.createDirectories(work.resolve("keys").resolve("trusted"));
        Path privateKeys = OwnerOnlyFiles.directory(work.resolve("keys").resolve("approver"));
        approverKey = privateKeys.resolve(APPROVER_KEY_ID + KeyFiles.PRIVATE_SUFFIX);
        if (!Files.exists(approverKey)) {
            KeyFiles.GeneratedKey generated = KeyFiles.generate(privateKeys, APPROVER_KEY_ID);
            Files.move(generated.publicKeyFile(), keys.resolve(generated.publicKeyFile().getFileName()));
        }
        Path secrets = OwnerOnlyFiles.directory(work.resolve("secrets"));
        String smtpPassword = OwnerOnlyFiles.secret(secrets.resolve("smtp-password"));
        String imapPassword = OwnerOnlyFiles.secret(secrets.resolve("imap-password"));
        // the HTTP API's bearer token: generated once per data directory, printed below
        tokenFile = secrets.resolve("http-token");
        String token = OwnerOnlyFiles.secret(tokenFile);
        // a tool host's token for POST /v1/proposals (the packages under clients/ and their examples): org demo,
        // profile assistant, in the MCP gateway's token-file format
        String hostToken = OwnerOnlyFiles.secret(secrets.resolve("host-token"));
        Path hostTokens = secrets.resolve("host-tokens");
        OwnerOnlyFiles.writeString(hostTokens, hostToken + " assistant-host " + DemoPolicy.ORG + " "
                + DemoPolicy.PROFILE + "\n");

        Sandboxes boxes = Sandboxes.start(smtpPassword, imapPassword);
        SandboxObjectStore objects = null;
        DevIdentityProvider provider = null;
        try {
            objects = SandboxObjectStore.start(work.resolve("objects"), secrets);
            Map<String, String> config = new HashMap<>(context.config());
            devDefaults(boxes, keys, secrets).forEach(config::putIfAbsent);
            notifierDefaults(boxes, secrets).forEach(config::putIfAbsent);
            // the executor runs the tools of the MCP gateway's mcp upstreams on those upstreams themselves
            DevMcpGateway.connectorDefaults(context.config(), boxes.mcp().url()).forEach(config::putIfAbsent);
            DevCliTools.install(work.resolve("cli")).forEach(config::putIfAbsent);
            objects.storageConfig().forEach(config::putIfAbsent);
            config.putAll(overrides);
            // the approval service signs in against the configured identity provider, or against the one dev runs
            if (!config.containsKey(ApproverConfig.OIDC_ISSUER)) {
                provider = DevIdentityProvider.start();
                config.put(ApproverConfig.OIDC_ISSUER, provider.issuer().toString());
                config.put(ApproverConfig.OIDC_CLIENT_ID, DevIdentityProvider.CLIENT_ID);
            }
            // loopback, a free port; signing with the demo approver key, whose public half the gate trusts
            config.putIfAbsent(ApproverConfig.PUBLIC_URL, "http://localhost:0");
            config.putIfAbsent(ApproverConfig.PORT, "0");
            config.putIfAbsent(ApproverConfig.SIGNING_KEY_FILE, approverKey.toString());
            config.putIfAbsent(ApproverConfig.SIGNING_KEY_ID, APPROVER_KEY_ID);
            // the sealing key of sessions and one-time code secrets: kept with the data, so factors survive a restart
            config.putIfAbsent(ApproverConfig.STATE_KEY_FILE, stateKey(secrets.resolve("approver-state.key"))
                    .toString());
            storageConfigFile = writeStorageConfig(work.resolve("storage.properties"), config);
            lifecycleNote = initBucket(config);
            publish(context, DemoPolicy.entries());
            ActiongateNode started = ActiongateNode.start(config, Role.parse("all,approver,notifier"));
            this.sandboxes = boxes;
            this.objectStore = objects;
            this.identityProvider = provider;
            this.node = started;
            this.effectiveConfig = Map.copyOf(config);
        } catch (Exception | Error e) {
            boxes.close();
            if (objects != null) {
                objects.close();
            }
            if (provider != null) {
                provider.close();
            }
            throw e;
        }
        String gate = "http://127.0.0.1:" + node.httpPort();
        context.hint("gate HTTP: " + gate + "/v1/actions/{task_id}/{tool_call_id}, " + gate + "/metrics, "
                + gate + "/health/ready");
        context.hint(tokenHint("gate API token:", effectiveConfig, HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG,
                tokenFile, token, "curl -H 'Authorization: Bearer TOKEN' " + gate + "/v1/actions/T-1/CALL"));
        context.hint(tokenHint("tool host token: ", effectiveConfig, ProposalApiConfig.TOKENS_FILE_CONFIG,
                hostTokens, hostToken, "POST " + gate + "/v1/proposals, " + gate + "/v1/openapi.json; "
                        + "ACTIONGATE_TOKEN=TOKEN PYTHONPATH=clients/python/src python3 "
                        + "clients/python/examples/propose_email.py"));
        context.hint("sandbox webhook provider: " + sandboxes.webhookUri() + "   sandbox SMTP: 127.0.0.1:"
                + sandboxes.smtpPort() + "   IMAP: 127.0.0.1:" + sandboxes.imapPort() + "   sandbox MCP server: "
                + sandboxes.mcp().url() + "/mcp");
        context.hint("object store (attachments): " + objectStore.endpoint() + " bucket "
                + SandboxObjectStore.BUCKET + "; stage files with: ./actiongate propose ... --attach FILE "
                + "--storage-config " + storageConfigFile);
        if (lifecycleNote != null) {
            context.hint("object store note: " + lifecycleNote);
        }
        context.hint("reviewers are told: each waiting action goes to the sandbox chat webhook (dev logs every message "
                + "as \"sandbox chat: ...\") and to the mailbox " + Sandboxes.REVIEWERS + " (IMAP 127.0.0.1:"
                + sandboxes.imapPort() + ", user " + Sandboxes.REVIEWERS_IMAP_USER + ", password in "
                + secrets(context).resolve("imap-password") + "); route notify:demo:*:* of the demo policy");
        context.hint("demo policy loaded (org 'demo', profile 'assistant', task 'T-1'); approver key: "
                + approverKey);
        ApproverService approver = approver();
        context.hint("approval page: " + approver.publicUrl() + "/queue   (sign in, add a one-time code app or a "
                + "passkey under Step-up factors, then review and approve)");
        if (identityProvider != null) {
            context.hint("demo login: username " + DevIdentityProvider.DEMO_SUBJECT + " at the in-process identity "
                    + "provider " + identityProvider.issuer() + " (no password; org '" + DemoPolicy.ORG
                    + "' comes from the provider, leave the claims box empty)");
        } else {
            context.hint("sign in at " + approver.config().oidcIssuer() + " (approver.oidc.issuer)");
        }
        if (proposeDemoEmail) {
            proposeDemoEmail(context);
            mailboxWatch = watchMailbox(sandboxes);
            context.hint("waiting for your approval: the demo summary email, " + approver.publicUrl() + "/review/"
                    + ActionKey.format(DEMO_TASK, DEMO_EMAIL_CALL) + "; once approved it arrives in the sandbox mailbox ("
                    + Sandboxes.MAIL_RECIPIENT + "); dev logs \"emails in the sandbox mailbox\" when it lands");
        }
        context.hint("watch receipts:   ./actiongate receipts --follow --bootstrap-servers "
                + context.bootstrapServers());
        context.hint("approve an action: ./actiongate decide T-1 CALL --type APPROVE --key " + approverKey
                + " --approver " + APPROVER_SUBJECT + " --org " + DemoPolicy.ORG + " --gate-url " + gate
                + " --token-file " + tokenFile + " --bootstrap-servers " + context.bootstrapServers());
        return this::close;
    }

    /**
     * The summary line of a credential dev made: the token and its file when {@code key} names that file in the
     * configuration in force, else only the file that is in force (a {@code --config} of one's own), never a token
     * that the server would refuse. {@code use} shows it in use, {@code TOKEN} standing for the token.
     */
    static String tokenHint(String label, Map<String, String> inForce, String key, Path devFile, String token,
                            String use) {
        String configured = inForce.get(key);
        if (configured != null && sameFile(Path.of(configured.strip()), devFile)) {
            return label + " " + token + "   (in " + devFile + "; " + use.replace("TOKEN", token) + ")";
        }
        if (configured == null || configured.isBlank()) {
            return label + " none in force (" + key + " is not set)";
        }
        return label + " those of " + configured.strip() + " (" + key + " of your configuration; dev's own "
                + devFile.getFileName() + " is not in force)";
    }

    private static boolean sameFile(Path a, Path b) {
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /**
     * Every role of the node can serve (the gate's store answers queries), and the demo email this stack proposed is
     * in the gate's store: the review URL dev prints then shows it at once.
     */
    @Override
    public boolean ready() {
        ActiongateNode n = node;
        if (n == null || !n.ready()) {
            return false;
        }
        if (!proposeDemoEmail) {
            return true;
        }
        try {
            return n.gate().map(g -> g.localReceipt(ActionKey.format(DEMO_TASK, DEMO_EMAIL_CALL)).isPresent())
                    .orElse(true);
        } catch (RuntimeException e) {
            return false; // the store moved while we asked: ask again
        }
    }

    private static Map<String, String> devDefaults(Sandboxes boxes, Path keys, Path secrets) {
        Map<String, String> d = new HashMap<>();
        d.put("http.port", "8080");
        d.put("http.bind.address", "127.0.0.1");
        d.put(HttpServerConfig.HTTP_AUTH_TOKENS_FILE_CONFIG, secrets.resolve("http-token").toString());
        d.put(ProposalApiConfig.TOKENS_FILE_CONFIG, secrets.resolve("host-tokens").toString());
        d.put(GateConfig.TRUSTED_KEYS_DIR_CONFIG, keys.toString());
        d.put("executor.dispatch.threads", "4");
        d.put("reconciler.backoff.initial", "500ms");
        d.put("reconciler.backoff.max", "5s");
        // the gate's own Streams defaults (GateStreams.STREAMS_DEFAULTS: group commit, a backlog every 50 ms) are
        // dev's; but dev runs one gate instance, so no other instance can hold a standby replica (Kafka Streams would
        // warn at every rebalance that it cannot place one)
        d.put("gate.streams.num.standby.replicas", "0");
        d.put("connectors.webhook.base-url", boxes.webhookUri().toString());
        d.put("connectors.webhook.operations", "post_update");
        d.put("connectors.webhook.read-operations", "get_notes");
        d.put("connectors.webhook.response-timeout-ms", "2000");
        d.put("connectors.smtp.host", "127.0.0.1");
        d.put("connectors.smtp.port", Integer.toString(boxes.smtpPort()));
        d.put("connectors.smtp.from", Sandboxes.MAIL_SENDER);
        d.put("connectors.smtp.username", Sandboxes.SMTP_USER);
        d.put("connectors.smtp.password", "file:" + secrets.resolve("smtp-password"));
        d.put("connectors.smtp.allowed-domains", Sandboxes.MAIL_DOMAIN);
        d.put("connectors.smtp.imap-host", "127.0.0.1");
        d.put("connectors.smtp.imap-port", Integer.toString(boxes.imapPort()));
        d.put("connectors.smtp.imap-username", Sandboxes.IMAP_USER);
        d.put("connectors.smtp.imap-password", "file:" + secrets.resolve("imap-password"));
        d.put("connectors.smtp.imap-authoritative", "true");
        return d;
    }

    /**
     * The notifier's dev settings: the demo route's chat webhook {@code team} is the sandbox chat webhook (its URL given
     * by reference, as a real one is a secret) and email goes to the sandbox mail server as the smtp connector's does.
     */
    private static Map<String, String> notifierDefaults(Sandboxes boxes, Path secrets) throws IOException {
        Path chatUrl = secrets.resolve("chat-webhook-url");
        OwnerOnlyFiles.writeString(chatUrl, boxes.chat().url() + "\n");
        Map<String, String> d = new HashMap<>();
        d.put(NotifierConfig.SLACK_PREFIX + "team.url", "file:" + chatUrl);
        d.put(NotifierConfig.SMTP_PREFIX + "host", "127.0.0.1");
        d.put(NotifierConfig.SMTP_PREFIX + "port", Integer.toString(boxes.smtpPort()));
        d.put(NotifierConfig.SMTP_PREFIX + "from", Sandboxes.MAIL_SENDER);
        d.put(NotifierConfig.SMTP_PREFIX + "username", Sandboxes.SMTP_USER);
        d.put(NotifierConfig.SMTP_PREFIX + "password", "file:" + secrets.resolve("smtp-password"));
        d.put(NotifierConfig.SMTP_PREFIX + "allowed-domains", Sandboxes.MAIL_DOMAIN);
        d.put(NotifierConfig.CHECK_INTERVAL, "500ms");
        return d;
    }

    /**
     * Proposes the demo summary email for task {@link #DEMO_TASK}; a second run on the same data directory proposes
     * the same action again, which the gate treats as a redelivery (nothing new happens).
     */
    private static void proposeDemoEmail(DevContext context)
            throws InterruptedException, ExecutionException, TimeoutException {
        io.actiongate.avro.ActionProposal email = DemoScenario.summaryEmail(DEMO_TASK, DEMO_EMAIL_CALL);
        try (KafkaProducer<String, byte[]> producer = KafkaClients.of(context.bootstrapServers(), Map.of())
                .producer("actiongate-dev-demo").create(new StringSerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.send(new ProducerRecord<>(Topics.PROPOSALS.name(context.topicPrefix()),
                    ActionKey.format(DEMO_TASK, DEMO_EMAIL_CALL), Topics.PROPOSALS.valueSerde().serializer().serialize(null, email)))
                    .get(30, TimeUnit.SECONDS);
        }
    }

    /** Logs each change of the sandbox mailbox's count (no content), so a person sees their approved email land. */
    private static java.util.concurrent.ScheduledExecutorService watchMailbox(Sandboxes boxes) {
        org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger("io.actiongate.dev.SandboxMailbox");
        java.util.concurrent.ScheduledExecutorService watch = java.util.concurrent.Executors
                .newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "actiongate-dev-mailbox");
                    t.setDaemon(true);
                    return t;
                });
        int[] seen = {boxes.mailsReceived()};
        watch.scheduleWithFixedDelay(() -> {
            int now = boxes.mailsReceived();
            if (now != seen[0]) {
                seen[0] = now;
                log.info("emails in the sandbox mailbox ({}): {}", Sandboxes.MAIL_RECIPIENT, now);
            }
        }, 1, 1, TimeUnit.SECONDS);
        return watch;
    }

    /** The approval service's sealing key file (one AES-256 key), created owner-only on the first run. */
    private static Path stateKey(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            OwnerOnlyFiles.writeString(file, "# the approval service's sealing keys (approver.state.key.file)\n"
                    + "dev-1=" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(key) + "\n");
        }
        return file;
    }

    /** Writes policy records to the policy topic and waits for the broker to take them. */
    public static void publish(DevContext context, List<PolicyJson.Entry> entries)
            throws InterruptedException, ExecutionException, TimeoutException {
        publish(context.bootstrapServers(), context.topicPrefix(), entries);
    }

    public static void publish(String bootstrapServers, String prefix, List<PolicyJson.Entry> entries)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (KafkaProducer<String, PolicyRecord> producer = KafkaClients.of(bootstrapServers, Map.of())
                .producer("actiongate-dev-policy").create(new StringSerializer(),
                        Topics.POLICY.valueSerde().serializer())) {
            for (PolicyJson.Entry entry : entries) {
                producer.send(new ProducerRecord<>(Topics.POLICY.name(prefix), entry.key().toString(),
                        entry.record()));
            }
            producer.flush();
        }
    }

    public Sandboxes sandboxes() {
        return sandboxes;
    }

    public SandboxObjectStore objectStore() {
        return objectStore;
    }

    /** The {@code storage.*} keys of this run, for {@code propose --attach --storage-config}. */
    public Path storageConfigFile() {
        return storageConfigFile;
    }

    private static Path writeStorageConfig(Path file, Map<String, String> config) throws java.io.IOException {
        StringBuilder text = new StringBuilder("# written by 'actiongate dev': the object store of this run\n");
        new java.util.TreeMap<>(config).forEach((k, v) -> {
            if (k.startsWith(ObjectStoreConfig.PREFIX)) {
                text.append(k).append('=').append(v).append('\n');
            }
        });
        // holds the object store's access key and secret
        return OwnerOnlyFiles.writeString(file, text.toString());
    }

    /**
     * Creates the attachments bucket. The sandbox store (S3Proxy) has no bucket lifecycle rules: it logs the unknown
     * request at ERROR and the store warns; neither is a failure of dev, so both are held back while the bucket is
     * set up and the store's note is returned for the summary instead (nothing at WARN before it, as dev promises).
     */
    private static String initBucket(Map<String, String> config) {
        ObjectStoreConfig storage = ObjectStoreConfig.fromNodeConfig(config);
        if (!storage.enabled()) {
            return null;
        }
        try (S3AttachmentStore store = S3AttachmentStore.create(storage)) {
            return LocalLogging.quietly(() -> store.init(storage.stagedExpiryDays()).lifecycleNote(),
                    "org.gaul.s3proxy.S3ProxyHandler", S3AttachmentStore.class.getName());
        }
    }

    public ActiongateNode node() {
        return node;
    }

    /** The file holding the HTTP API's bearer token. */
    public Path tokenFile() {
        return tokenFile;
    }

    private static Path secrets(DevContext context) {
        return context.workDir().resolve("secrets");
    }

    /** The approval service of this run. */
    public ApproverService approver() {
        return node.approver().orElseThrow();
    }

    /** The identity provider dev started, or null when {@code approver.oidc.issuer} names another one. */
    public DevIdentityProvider identityProvider() {
        return identityProvider;
    }

    public Path approverKey() {
        return approverKey;
    }

    public Map<String, String> config() {
        return effectiveConfig;
    }

    private void close() {
        java.util.concurrent.ScheduledExecutorService w = mailboxWatch;
        if (w != null) {
            w.shutdownNow();
        }
        ActiongateNode n = node;
        Sandboxes s = sandboxes;
        SandboxObjectStore o = objectStore;
        DevIdentityProvider p = identityProvider;
        try {
            try {
                if (n != null) {
                    n.close();
                }
            } finally {
                if (p != null) {
                    p.close();
                }
            }
        } finally {
            try {
                if (s != null) {
                    s.close();
                }
            } finally {
                if (o != null) {
                    o.close();
                }
            }
        }
    }
}
