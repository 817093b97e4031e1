package io.actiongate.storage;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

/**
 * A real S3-compatible server on loopback in this JVM: S3Proxy over its filesystem backend, on a free port, with
 * AWS v2/v4 signature checking. Tests, and the ITs of the gate and executor, point {@link S3AttachmentStore} at
 * {@link #storageConfig} exactly as production points it at S3 or MinIO.
 */
public final class EmbeddedS3Server implements AutoCloseable {

    public static final String ACCESS_KEY_ENV = "ACTIONGATE_TEST_S3_ACCESS_KEY";

    private final S3Proxy proxy;
    private final String accessKey;
    private final String secretKey;
    private final Path directory;
    private final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();

    private EmbeddedS3Server(S3Proxy proxy, String accessKey, String secretKey, Path directory) {
        this.proxy = proxy;
        this.accessKey = accessKey;
        this.secretKey = secretKey;
        this.directory = directory;
    }

    /** Starts a server keeping its objects below {@code directory}. */
    public static EmbeddedS3Server start(Path directory) throws Exception {
        String accessKey = "local-access";
        String secretKey = "local-secret-" + Long.toHexString(System.nanoTime());
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(new FilesystemNio2BlobStore(directory.toString()))
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
                .build();
        proxy.start();
        long deadline = System.currentTimeMillis() + 10_000;
        while (!"STARTED".equals(proxy.getState()) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        return new EmbeddedS3Server(proxy, accessKey, secretKey, directory);
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    public Path directory() {
        return directory;
    }

    /**
     * {@code storage.*} keys for this server. The credentials travel as {@code file:} references written below
     * {@code secretsDir}, as an operator would mount them.
     */
    public Map<String, String> storageConfig(String bucket, Path secretsDir) throws java.io.IOException {
        java.nio.file.Files.createDirectories(secretsDir);
        Path id = secretsDir.resolve("s3-access-key-id");
        Path secret = secretsDir.resolve("s3-secret-access-key");
        java.nio.file.Files.writeString(id, accessKey);
        java.nio.file.Files.writeString(secret, secretKey);
        return Map.of(
                ObjectStoreConfig.ENABLED_CONFIG, "true",
                ObjectStoreConfig.ENDPOINT_CONFIG, endpoint().toString(),
                ObjectStoreConfig.REGION_CONFIG, "us-east-1",
                ObjectStoreConfig.BUCKET_CONFIG, bucket,
                ObjectStoreConfig.PATH_STYLE_CONFIG, "true",
                ObjectStoreConfig.ACCESS_KEY_ID_CONFIG, "file:" + id,
                ObjectStoreConfig.SECRET_ACCESS_KEY_CONFIG, "file:" + secret,
                ObjectStoreConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    }

    /**
     * Replaces an object behind actiongate's back, with the content type and user metadata given, as someone with
     * write access to the bucket could.
     */
    public void overwrite(String bucket, String key, byte[] content, String contentType, Map<String, String> metadata) {
        try (software.amazon.awssdk.services.s3.S3Client raw = software.amazon.awssdk.services.s3.S3Client.builder()
                .endpointOverride(endpoint()).forcePathStyle(true)
                .region(software.amazon.awssdk.regions.Region.US_EAST_1)
                .credentialsProvider(() -> software.amazon.awssdk.auth.credentials.AwsBasicCredentials.create(
                        accessKey, secretKey))
                .httpClientBuilder(software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.builder())
                .build()) {
            raw.putObject(b -> b.bucket(bucket).key(key).contentType(contentType).metadata(metadata),
                    software.amazon.awssdk.core.sync.RequestBody.fromBytes(content));
        }
    }

    @Override
    public void close() {
        if (stopped.getAndSet(true)) {
            return;
        }
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("S3Proxy did not stop", e);
        }
    }
}
