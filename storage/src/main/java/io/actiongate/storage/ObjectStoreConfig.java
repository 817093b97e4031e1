package io.actiongate.storage;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where attachments live: any S3-compatible store (AWS S3, MinIO, Ceph RGW, S3Proxy). Keys under {@code storage.}.
 * Credentials are references ({@code env:NAME}, {@code file:PATH}); without them the AWS SDK's default provider
 * chain applies (environment, profile, instance role).
 */
public final class ObjectStoreConfig extends AbstractConfig {

    public static final String PREFIX = "storage.";

    public static final String ENABLED_CONFIG = "storage.enabled";
    public static final String ENABLED_DOC = "Whether attachments are verified against the object store. When false, "
            + "a proposal or reservation carrying attachments is refused (ATTACHMENT_INVALID): nothing unverified is "
            + "ever dispatched.";

    public static final String ENDPOINT_CONFIG = "storage.endpoint";
    public static final String ENDPOINT_DOC = "S3 endpoint URL, e.g. http://127.0.0.1:9000 for MinIO; empty for AWS "
            + "S3's regional endpoint.";

    public static final String REGION_CONFIG = "storage.region";
    public static final String REGION_DOC = "Region the client signs requests for.";

    public static final String BUCKET_CONFIG = "storage.bucket";
    public static final String BUCKET_DOC = "Bucket that holds staged attachments.";

    public static final String PATH_STYLE_CONFIG = "storage.path.style";
    public static final String PATH_STYLE_DOC = "Path-style addressing (http://host/bucket/key), needed by most "
            + "self-hosted stores.";

    public static final String ACCESS_KEY_ID_CONFIG = "storage.access.key.id";
    public static final String ACCESS_KEY_ID_DOC = "Reference to the access key id, env:NAME or file:PATH; empty for "
            + "the AWS SDK's default credentials chain.";

    public static final String SECRET_ACCESS_KEY_CONFIG = "storage.secret.access.key";
    public static final String SECRET_ACCESS_KEY_DOC = "Reference to the secret access key, env:NAME or file:PATH.";

    public static final String KEY_PREFIX_CONFIG = "storage.key.prefix";
    public static final String KEY_PREFIX_DOC = "Prefix of every staged object key; objects below it are "
            + "'{prefix}{task_id}/{tool_call_id}/{random}'. The lifecycle rule covers this prefix.";

    public static final String REQUEST_TIMEOUT_MS_CONFIG = "storage.request.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS_DOC = "Bound of one whole S3 call (connect, send, answer) made by "
            + "the executor, the cleaner and the CLI.";

    public static final String ADMISSION_TIMEOUT_MS_CONFIG = "storage.admission.timeout.ms";
    public static final String ADMISSION_TIMEOUT_MS_DOC = "Bound of the check the gate makes of a proposal's "
            + "attachments at admission (a HEAD per object, and a read of the bytes of an object without a store "
            + "checksum), on a stream thread; kept short on purpose.";

    public static final String ADMISSION_STORE_CHECKSUM_CONFIG = "storage.admission.store.checksum";
    public static final String ADMISSION_STORE_CHECKSUM_DOC = "At admission, take the store's own SHA-256 checksum "
            + "(x-amz-checksum-sha256, verified by the store on upload, returned by HEAD in checksum mode) as the "
            + "evidence of an object's content when the store has one; objects without one are hashed by reading "
            + "their bytes. false: always read and hash the bytes (for a store that keeps the header without "
            + "verifying it).";

    public static final String STAGED_EXPIRY_DAYS_CONFIG = "storage.staged.expiry.days";
    public static final String STAGED_EXPIRY_DAYS_DOC = "Age in days after which the bucket lifecycle rule deletes an "
            + "abandoned staged object ('storage init'). A backstop: the receipts cleaner deletes objects first.";

    public static final String MAX_FILE_BYTES_CONFIG = "storage.max.file.bytes";
    public static final String MAX_FILE_BYTES_DOC = "Largest attachment accepted when staging, at admission and at "
            + "dispatch.";

    public static final String MAX_ACTION_BYTES_CONFIG = "storage.max.action.bytes";
    public static final String MAX_ACTION_BYTES_DOC = "Largest total of all attachments of one action.";

    public static final String MAX_ATTACHMENTS_CONFIG = "storage.max.attachments";
    public static final String MAX_ATTACHMENTS_DOC = "Most attachments one action may carry.";

    public static final String CONTENT_TYPES_CONFIG = "storage.content.types";
    public static final String CONTENT_TYPES_DOC = "Content types accepted for every tool unless the tool has its own "
            + "list ('storage.tool.{provider}.{tool_name}.content.types').";

    public static final String TOOL_PREFIX = "storage.tool.";
    public static final String TOOL_CONTENT_TYPES_SUFFIX = ".content.types";

    private final Map<String, List<String>> toolContentTypes;

    public ObjectStoreConfig(Map<String, ?> originals) {
        super(configDef(), originals, false);
        this.toolContentTypes = toolContentTypes(originals);
        if (getString(ACCESS_KEY_ID_CONFIG).isBlank() != getPassword(SECRET_ACCESS_KEY_CONFIG).value().isBlank()) {
            throw new ConfigException(ACCESS_KEY_ID_CONFIG + " and " + SECRET_ACCESS_KEY_CONFIG
                    + " are set together or not at all");
        }
        String endpoint = getString(ENDPOINT_CONFIG);
        if (!endpoint.isBlank()) {
            URI uri = URI.create(endpoint);
            if (uri.getScheme() == null || !(uri.getScheme().equals("http") || uri.getScheme().equals("https"))
                    || uri.getHost() == null || uri.getUserInfo() != null) {
                throw new ConfigException(ENDPOINT_CONFIG, "(hidden)", "must be an http(s) URL without user info");
            }
        }
    }

    /** Only the {@code storage.} keys of a whole node configuration. */
    public static ObjectStoreConfig fromNodeConfig(Map<String, ?> all) {
        Map<String, Object> mine = new HashMap<>();
        all.forEach((k, v) -> {
            if (k.startsWith(PREFIX)) {
                mine.put(k, v);
            }
        });
        return new ObjectStoreConfig(mine);
    }

    public static ConfigDef configDef() {
        return new ConfigDef()
                .define(ENABLED_CONFIG, Type.BOOLEAN, false, Importance.HIGH, ENABLED_DOC)
                .define(ENDPOINT_CONFIG, Type.STRING, "", Importance.HIGH, ENDPOINT_DOC)
                .define(REGION_CONFIG, Type.STRING, "us-east-1", new ConfigDef.NonEmptyString(), Importance.MEDIUM,
                        REGION_DOC)
                .define(BUCKET_CONFIG, Type.STRING, "actiongate-attachments", new ConfigDef.NonEmptyString(),
                        Importance.HIGH, BUCKET_DOC)
                .define(PATH_STYLE_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, PATH_STYLE_DOC)
                .define(ACCESS_KEY_ID_CONFIG, Type.STRING, "", Importance.HIGH, ACCESS_KEY_ID_DOC)
                .define(SECRET_ACCESS_KEY_CONFIG, Type.PASSWORD, "", Importance.HIGH, SECRET_ACCESS_KEY_DOC)
                .define(KEY_PREFIX_CONFIG, Type.STRING, "attachments/", Importance.LOW, KEY_PREFIX_DOC)
                .define(REQUEST_TIMEOUT_MS_CONFIG, Type.LONG, 10_000L, Range.between(100, 600_000),
                        Importance.MEDIUM, REQUEST_TIMEOUT_MS_DOC)
                .define(ADMISSION_TIMEOUT_MS_CONFIG, Type.LONG, 1_000L, Range.between(50, 10_000),
                        Importance.MEDIUM, ADMISSION_TIMEOUT_MS_DOC)
                .define(ADMISSION_STORE_CHECKSUM_CONFIG, Type.BOOLEAN, true, Importance.LOW,
                        ADMISSION_STORE_CHECKSUM_DOC)
                .define(STAGED_EXPIRY_DAYS_CONFIG, Type.INT, 2, Range.between(1, 365), Importance.LOW,
                        STAGED_EXPIRY_DAYS_DOC)
                .define(MAX_FILE_BYTES_CONFIG, Type.LONG, 10L * 1024 * 1024, Range.between(1, 1L << 31),
                        Importance.MEDIUM, MAX_FILE_BYTES_DOC)
                .define(MAX_ACTION_BYTES_CONFIG, Type.LONG, 25L * 1024 * 1024, Range.between(1, 1L << 31),
                        Importance.MEDIUM, MAX_ACTION_BYTES_DOC)
                .define(MAX_ATTACHMENTS_CONFIG, Type.INT, 8, Range.between(0, 100), Importance.LOW,
                        MAX_ATTACHMENTS_DOC)
                .define(CONTENT_TYPES_CONFIG, Type.LIST, "application/pdf,text/plain,text/csv,image/png,image/jpeg",
                        Importance.MEDIUM, CONTENT_TYPES_DOC);
    }

    private static Map<String, List<String>> toolContentTypes(Map<String, ?> originals) {
        Map<String, List<String>> byTool = new HashMap<>();
        originals.forEach((k, v) -> {
            if (k.startsWith(TOOL_PREFIX) && k.endsWith(TOOL_CONTENT_TYPES_SUFFIX)) {
                String tool = k.substring(TOOL_PREFIX.length(), k.length() - TOOL_CONTENT_TYPES_SUFFIX.length());
                List<String> types = List.of(String.valueOf(v).split(",")).stream().map(String::strip)
                        .filter(s -> !s.isEmpty()).map(ContentTypes::normalize).toList();
                byTool.put(tool, types);
            }
        });
        return Map.copyOf(byTool);
    }

    public boolean enabled() {
        return getBoolean(ENABLED_CONFIG);
    }

    public Optional<URI> endpoint() {
        String endpoint = getString(ENDPOINT_CONFIG).strip();
        return endpoint.isEmpty() ? Optional.empty() : Optional.of(URI.create(endpoint));
    }

    public String region() {
        return getString(REGION_CONFIG);
    }

    public String bucket() {
        return getString(BUCKET_CONFIG);
    }

    public boolean pathStyle() {
        return getBoolean(PATH_STYLE_CONFIG);
    }

    /** The credential references (never the secrets), empty when the default chain applies. */
    public Optional<CredentialReferences> credentials() {
        String id = getString(ACCESS_KEY_ID_CONFIG).strip();
        if (id.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new CredentialReferences(id, getPassword(SECRET_ACCESS_KEY_CONFIG).value().strip()));
    }

    public String keyPrefix() {
        return getString(KEY_PREFIX_CONFIG);
    }

    public Duration requestTimeout() {
        return Duration.ofMillis(getLong(REQUEST_TIMEOUT_MS_CONFIG));
    }

    public Duration admissionTimeout() {
        return Duration.ofMillis(getLong(ADMISSION_TIMEOUT_MS_CONFIG));
    }

    /** Whether admission believes the store's own SHA-256 checksum ({@link StoredObject#storeSha256()}). */
    public boolean admissionTrustsStoreChecksum() {
        return getBoolean(ADMISSION_STORE_CHECKSUM_CONFIG);
    }

    public int stagedExpiryDays() {
        return getInt(STAGED_EXPIRY_DAYS_CONFIG);
    }

    /** The size, count and content-type limits for {@code provider}'s tool {@code toolName}. */
    public AttachmentLimits limits(String provider, String toolName) {
        List<String> types = toolContentTypes.get(provider + "." + toolName);
        if (types == null) {
            types = getList(CONTENT_TYPES_CONFIG).stream().map(ContentTypes::normalize).toList();
        }
        return new AttachmentLimits(getLong(MAX_FILE_BYTES_CONFIG), getLong(MAX_ACTION_BYTES_CONFIG),
                getInt(MAX_ATTACHMENTS_CONFIG), types);
    }

    /** Two secret references; {@link #toString()} shows only their kinds. */
    public record CredentialReferences(String accessKeyIdReference, String secretAccessKeyReference) {
        @Override
        public String toString() {
            return "CredentialReferences[by reference]";
        }
    }
}
