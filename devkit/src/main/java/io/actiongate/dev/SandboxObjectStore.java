package io.actiongate.dev;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;

import io.actiongate.storage.ObjectStoreConfig;

/**
 * The object store {@code actiongate dev} runs for private attachments: S3Proxy over its filesystem backend on
 * 127.0.0.1 and a free port, with AWS signature checking and per-run credentials written as secret files. The node
 * reaches it through the same S3 client and {@code storage.*} keys as AWS S3 or MinIO in production.
 */
public final class SandboxObjectStore implements AutoCloseable {

    public static final String BUCKET = "actiongate-attachments";

    private final S3Proxy proxy;
    private final Map<String, String> storageConfig;

    private SandboxObjectStore(S3Proxy proxy, Map<String, String> storageConfig) {
        this.proxy = proxy;
        this.storageConfig = storageConfig;
    }

    /** Starts with objects below {@code directory} and credentials written to {@code secrets}. */
    public static SandboxObjectStore start(Path directory, Path secrets) throws Exception {
        Files.createDirectories(directory);
        String accessKey = "dev-" + random(6);
        String secretKey = random(24);
        Path id = write(secrets.resolve("s3-access-key-id"), accessKey);
        Path secret = write(secrets.resolve("s3-secret-access-key"), secretKey);
        S3Proxy proxy = S3Proxy.builder()
                .blobStore(new FilesystemNio2BlobStore(directory.toString()))
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
                .build();
        proxy.start();
        long deadline = System.currentTimeMillis() + 15_000;
        while (!"STARTED".equals(proxy.getState()) && System.currentTimeMillis() < deadline) {
            Thread.sleep(20);
        }
        Map<String, String> config = new LinkedHashMap<>();
        config.put(ObjectStoreConfig.ENABLED_CONFIG, "true");
        config.put(ObjectStoreConfig.ENDPOINT_CONFIG, "http://127.0.0.1:" + proxy.getPort());
        config.put(ObjectStoreConfig.REGION_CONFIG, "us-east-1");
        config.put(ObjectStoreConfig.BUCKET_CONFIG, BUCKET);
        config.put(ObjectStoreConfig.PATH_STYLE_CONFIG, "true");
        config.put(ObjectStoreConfig.ACCESS_KEY_ID_CONFIG, "file:" + id);
        config.put(ObjectStoreConfig.SECRET_ACCESS_KEY_CONFIG, "file:" + secret);
        return new SandboxObjectStore(proxy, Map.copyOf(config));
    }

    /** The {@code storage.*} keys that point a node or the CLI at this store (credentials by reference). */
    public Map<String, String> storageConfig() {
        return storageConfig;
    }

    public URI endpoint() {
        return URI.create(storageConfig.get(ObjectStoreConfig.ENDPOINT_CONFIG));
    }

    private static Path write(Path file, String value) throws IOException {
        OwnerOnlyFiles.directory(file.getParent());
        return OwnerOnlyFiles.writeString(file, value);
    }

    private static String random(int bytes) {
        byte[] b = new byte[bytes];
        new SecureRandom().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public void close() {
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("the sandbox object store did not stop", e);
        }
    }
}
