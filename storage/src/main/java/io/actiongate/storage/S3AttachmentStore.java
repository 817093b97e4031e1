package io.actiongate.storage;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.AbortIncompleteMultipartUpload;
import software.amazon.awssdk.services.s3.model.BucketLifecycleConfiguration;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.ChecksumType;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.ExpirationStatus;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.LifecycleExpiration;
import software.amazon.awssdk.services.s3.model.LifecycleRule;
import software.amazon.awssdk.services.s3.model.LifecycleRuleFilter;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.NoSuchBucketException;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import io.actiongate.secrets.SecretReference;

/**
 * {@link AttachmentStore} over the S3 API (AWS SDK v2, JDK URL-connection transport). Works against AWS S3, MinIO,
 * Ceph RGW and S3Proxy: the SDK's newer default request checksums are only sent when an operation requires them,
 * since several compatible stores refuse them. Staging sends the SHA-256 the action records as the object's
 * additional checksum ({@code x-amz-checksum-sha256}): a store that supports it verifies the bytes against it and
 * returns it on HEAD (checksum mode), which is the admission check's evidence; the executor hashes the bytes it
 * reads in any case.
 *
 * <p>Logs name object keys and sizes, never bytes, credentials or URLs with signatures.
 */
public final class S3AttachmentStore implements AttachmentStore {

    private static final Logger LOG = LoggerFactory.getLogger(S3AttachmentStore.class);

    /** User metadata names (sent as {@code x-amz-meta-*}); hyphens, because some proxies drop underscored headers. */
    public static final String META_OWNER = "owner-invocation-id";
    public static final String META_SHA256 = "sha256";

    static final String LIFECYCLE_RULE_ID = "actiongate-expire-abandoned-attachments";

    private static final SecureRandom RANDOM = new SecureRandom();

    private final S3Client s3;
    private final String bucket;
    private final String keyPrefix;

    S3AttachmentStore(S3Client s3, String bucket, String keyPrefix) {
        this.s3 = s3;
        this.bucket = bucket;
        this.keyPrefix = keyPrefix;
    }

    /** A store whose every call is bounded by {@code timeout} (connect, send and answer). */
    public static S3AttachmentStore create(ObjectStoreConfig config, java.time.Duration timeout) {
        S3ClientBuilder builder = S3Client.builder()
                .region(Region.of(config.region()))
                .forcePathStyle(config.pathStyle())
                .credentialsProvider(credentials(config))
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(timeout)
                        .socketTimeout(timeout))
                .overrideConfiguration(c -> c.apiCallTimeout(timeout).apiCallAttemptTimeout(timeout));
        config.endpoint().ifPresent(builder::endpointOverride);
        return new S3AttachmentStore(builder.build(), config.bucket(), config.keyPrefix());
    }

    public static S3AttachmentStore create(ObjectStoreConfig config) {
        return create(config, config.requestTimeout());
    }

    private static AwsCredentialsProvider credentials(ObjectStoreConfig config) {
        return config.credentials()
                .<AwsCredentialsProvider>map(refs -> StaticCredentialsProvider.create(AwsBasicCredentials.create(
                        SecretReference.resolve(ObjectStoreConfig.ACCESS_KEY_ID_CONFIG, refs.accessKeyIdReference()),
                        SecretReference.resolve(ObjectStoreConfig.SECRET_ACCESS_KEY_CONFIG,
                                refs.secretAccessKeyReference()))))
                .orElseGet(() -> DefaultCredentialsProvider.builder().build());
    }

    public String bucket() {
        return bucket;
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    @Override
    public AttachmentRef stage(String ownerInvocationId, String contentType, byte[] bytes) {
        String key = Invocations.keyPrefix(keyPrefix, ownerInvocationId) + randomId();
        String sha256 = Sha256.hex(bytes);
        String type = ContentTypes.normalize(contentType);
        // the store's own checksum: it refuses the upload unless the bytes it received hash to this value, and a
        // HEAD in checksum mode returns it, so admission need not trust the metadata or read the bytes
        String checksum = Base64.getEncoder().encodeToString(HexFormat.of().parseHex(sha256));
        call("stage", key, () -> s3.putObject(b -> b.bucket(bucket).key(key).contentType(type)
                        .contentLength((long) bytes.length)
                        .checksumSHA256(checksum)
                        .metadata(Map.of(META_OWNER, ownerInvocationId, META_SHA256, sha256)),
                RequestBody.fromBytes(bytes)));
        LOG.debug("staged {} ({} bytes)", key, bytes.length);
        return new AttachmentRef(key, sha256, bytes.length, type, ownerInvocationId);
    }

    @Override
    public Optional<StoredObject> describe(String objectKey) {
        try {
            HeadObjectResponse head = call("describe", objectKey,
                    () -> s3.headObject(b -> b.bucket(bucket).key(objectKey).checksumMode(ChecksumMode.ENABLED)));
            return Optional.of(stored(objectKey, head.metadata(), head.contentLength(), head.contentType(),
                    storeSha256(head.checksumSHA256(), head.checksumType())));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (S3Exception e) {
            if (e.statusCode() == 404) {
                return Optional.empty();
            }
            throw e;
        }
    }

    @Override
    public Optional<ObjectContent> read(String objectKey, long maxBytes) {
        ResponseInputStream<GetObjectResponse> in;
        try {
            in = call("read", objectKey, () -> s3.getObject(b -> b.bucket(bucket).key(objectKey)));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        }
        try (in) {
            GetObjectResponse response = in.response();
            Long declared = response.contentLength();
            if (declared != null && declared > maxBytes) {
                in.abort();
                throw new ObjectTooLargeException(objectKey + " holds " + declared + " bytes, more than " + maxBytes);
            }
            MessageDigest digest = Sha256.newDigest();
            byte[] bytes = readBounded(in, digest, maxBytes, objectKey);
            StoredObject stored = stored(objectKey, response.metadata(), (long) bytes.length,
                    response.contentType(), null);
            return Optional.of(new ObjectContent(stored, bytes, HexFormat.of().formatHex(digest.digest())));
        } catch (IOException e) {
            throw new StorageUnavailableException("reading " + objectKey + " failed: " + e.getClass().getSimpleName(),
                    e);
        }
    }

    private static byte[] readBounded(InputStream in, MessageDigest digest, long maxBytes, String objectKey)
            throws IOException {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] buffer = new byte[16 * 1024];
        long total = 0;
        int n;
        while ((n = in.read(buffer)) >= 0) {
            total += n;
            if (total > maxBytes) {
                throw new ObjectTooLargeException(objectKey + " holds more than " + maxBytes + " bytes");
            }
            digest.update(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }

    @Override
    public void delete(String objectKey) {
        call("delete", objectKey, () -> s3.deleteObject(b -> b.bucket(bucket).key(objectKey)));
    }

    @Override
    public int deleteOwnedBy(String ownerInvocationId) {
        String prefix = Invocations.keyPrefix(keyPrefix, ownerInvocationId);
        int deleted = 0;
        String token = null;
        do {
            String continuation = token;
            ListObjectsV2Response page;
            try {
                page = call("list", prefix, () -> s3.listObjectsV2(b -> b.bucket(bucket).prefix(prefix)
                        .continuationToken(continuation)));
            } catch (NoSuchBucketException e) {
                return deleted;
            }
            List<ObjectIdentifier> ids = page.contents().stream().map(S3Object::key)
                    .map(k -> ObjectIdentifier.builder().key(k).build()).toList();
            if (!ids.isEmpty()) {
                // one DELETE per key: DeleteObjects needs a Content-MD5 some compatible stores do not accept from
                // a client that sends checksums only when required, and an action holds a handful of objects
                for (ObjectIdentifier id : ids) {
                    delete(id.key());
                    deleted++;
                }
            }
            token = Boolean.TRUE.equals(page.isTruncated()) ? page.nextContinuationToken() : null;
        } while (token != null);
        return deleted;
    }

    @Override
    public InitResult init(int expiryDays) {
        boolean created = false;
        try {
            call("head bucket", bucket, () -> s3.headBucket(b -> b.bucket(bucket)));
        } catch (NoSuchBucketException e) {
            call("create bucket", bucket, () -> s3.createBucket(b -> b.bucket(bucket)));
            created = true;
        } catch (S3Exception e) {
            if (e.statusCode() != 404) {
                throw e;
            }
            call("create bucket", bucket, () -> s3.createBucket(b -> b.bucket(bucket)));
            created = true;
        }
        LifecycleRule rule = LifecycleRule.builder()
                .id(LIFECYCLE_RULE_ID)
                .status(ExpirationStatus.ENABLED)
                .filter(LifecycleRuleFilter.builder().prefix(keyPrefix).build())
                .expiration(LifecycleExpiration.builder().days(expiryDays).build())
                .abortIncompleteMultipartUpload(AbortIncompleteMultipartUpload.builder().daysAfterInitiation(1).build())
                .build();
        try {
            // not through call(): a 501 here is an answer ("not implemented"), not an outage
            s3.putBucketLifecycleConfiguration(b -> b.bucket(bucket)
                    .lifecycleConfiguration(BucketLifecycleConfiguration.builder().rules(rule).build()));
            return new InitResult(created, true, null);
        } catch (SdkClientException e) {
            throw new StorageUnavailableException("put lifecycle " + bucket + " failed: " + rootCause(e), e);
        } catch (S3Exception e) {
            if (e.statusCode() == 501 || e.statusCode() == 405) {
                String code = e.awsErrorDetails() == null ? "" : e.awsErrorDetails().errorCode();
                String note = "the object store does not support bucket lifecycle rules (HTTP " + e.statusCode()
                        + (code == null || code.isEmpty() ? "" : " " + code)
                        + "); only the receipts cleaner deletes staged objects";
                LOG.warn("{}", note);
                return new InitResult(created, false, note);
            }
            throw e;
        }
    }

    /** The rules installed on the bucket, for operators and tests; empty when none or unsupported. */
    public List<LifecycleRule> lifecycleRules() {
        try {
            return call("get lifecycle", bucket,
                    () -> s3.getBucketLifecycleConfiguration(b -> b.bucket(bucket))).rules();
        } catch (S3Exception e) {
            return List.of();
        }
    }

    /** Every key in the bucket below the configured prefix (tests, operators). */
    public List<String> listKeys() {
        return call("list", keyPrefix, () -> s3.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(keyPrefix))
                .contents().stream().map(S3Object::key).toList());
    }

    @Override
    public void close() {
        s3.close();
    }

    private static StoredObject stored(String key, Map<String, String> metadata, Long length, String contentType,
                                       String storeSha256) {
        return new StoredObject(key, metadata.get(META_OWNER), length == null ? -1 : length,
                ContentTypes.normalize(contentType), metadata.get(META_SHA256), storeSha256);
    }

    /**
     * The store's full-object SHA-256 as hex, or null: absent, a composite checksum of a multipart upload (a hash
     * of the parts' hashes, {@code "...-3"}), or anything that is not 32 bytes of base64.
     */
    static String storeSha256(String checksum, ChecksumType type) {
        if (checksum == null || checksum.isBlank() || checksum.contains("-")
                || (type != null && type != ChecksumType.FULL_OBJECT)) {
            return null;
        }
        try {
            byte[] digest = Base64.getDecoder().decode(checksum.strip());
            return digest.length == 32 ? HexFormat.of().formatHex(digest) : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static String randomId() {
        byte[] id = new byte[16];
        RANDOM.nextBytes(id);
        return HexFormat.of().formatHex(id);
    }

    /**
     * Runs one S3 call; transport failures, throttling and 5xx become {@link StorageUnavailableException}. Other
     * S3 errors (404, 403) pass through for the caller to interpret.
     */
    private static <T> T call(String what, String target, java.util.function.Supplier<T> body) {
        try {
            return body.get();
        } catch (S3Exception e) {
            if (e.statusCode() >= 500 || e.statusCode() == 429 || e.statusCode() == 408 || e.isThrottlingException()) {
                throw new StorageUnavailableException(what + " " + target + " failed: HTTP " + e.statusCode(), e);
            }
            throw e;
        } catch (SdkClientException e) {
            throw new StorageUnavailableException(what + " " + target + " failed: " + rootCause(e), e);
        } catch (UncheckedIOException e) {
            throw new StorageUnavailableException(what + " " + target + " failed: " + rootCause(e), e);
        } catch (SdkException e) {
            if (e.retryable()) {
                throw new StorageUnavailableException(what + " " + target + " failed: " + rootCause(e), e);
            }
            throw e;
        }
    }

    private static String rootCause(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getClass().getSimpleName();
    }

    /** SHA-256 helpers; the algorithm is mandatory in every JDK. */
    static final class Sha256 {
        private Sha256() {
        }

        static MessageDigest newDigest() {
            try {
                return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 missing from the JDK", e);
            }
        }

        static String hex(byte[] bytes) {
            return HexFormat.of().formatHex(newDigest().digest(bytes));
        }
    }
}
