package io.actiongate.keyfiles;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Ed25519 key files as PEM: the private key as PKCS#8 ({@code ID.key}, owner read/write only), the public key as
 * X.509 SubjectPublicKeyInfo ({@code ID.pub}). A directory of {@code *.pub} files named by key id is how the gate
 * learns which approvers it trusts (docs/contract.md section 3: keys come from configuration, never a topic).
 */
public final class KeyFiles {

    public static final String ALGORITHM = "Ed25519";
    public static final String PRIVATE_SUFFIX = ".key";
    public static final String PUBLIC_SUFFIX = ".pub";
    /** A key id names files, so it is as strict as an action id. */
    public static final Pattern KEY_ID_PATTERN = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    private static final String PRIVATE_LABEL = "PRIVATE KEY";
    private static final String PUBLIC_LABEL = "PUBLIC KEY";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private KeyFiles() {
    }

    /** The two files written by {@link #generate}. */
    public record GeneratedKey(String keyId, Path privateKeyFile, Path publicKeyFile, PublicKey publicKey) {
    }

    /**
     * Generates an Ed25519 key pair and writes {@code keyId.key} and {@code keyId.pub} into {@code dir} (created
     * when missing). The private key file is created with owner-only permissions, so it is never readable by
     * others, not even for a moment. Refuses to overwrite either file.
     *
     * @throws FileAlreadyExistsException when either file exists
     */
    public static GeneratedKey generate(Path dir, String keyId) throws IOException {
        requireValidKeyId(keyId);
        Path privateFile = dir.resolve(keyId + PRIVATE_SUFFIX);
        Path publicFile = dir.resolve(keyId + PUBLIC_SUFFIX);
        for (Path existing : new Path[] {privateFile, publicFile}) {
            if (Files.exists(existing)) {
                throw new FileAlreadyExistsException(existing.toString(), null, "refusing to overwrite");
            }
        }
        KeyPair pair = newKeyPair();
        Files.createDirectories(dir);
        writeNew(privateFile, pem(PRIVATE_LABEL, pair.getPrivate().getEncoded()), true);
        writeNew(publicFile, pem(PUBLIC_LABEL, pair.getPublic().getEncoded()), false);
        return new GeneratedKey(keyId, privateFile, publicFile, pair.getPublic());
    }

    public static void requireValidKeyId(String keyId) {
        if (keyId == null || !KEY_ID_PATTERN.matcher(keyId).matches()) {
            throw new IllegalArgumentException("key id must match " + KEY_ID_PATTERN.pattern());
        }
    }

    private static KeyPair newKeyPair() {
        try {
            return KeyPairGenerator.getInstance(ALGORITHM).generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("Ed25519 is part of every Java 15+ platform", e);
        }
    }

    private static void writeNew(Path file, String content, boolean ownerOnly) throws IOException {
        FileAttribute<?>[] attributes = ownerOnly && supportsPosix(file)
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(OWNER_ONLY)}
                : new FileAttribute<?>[0];
        // CREATE_NEW: atomic "does not exist" check; the attribute sets the mode at creation (umask can only
        // remove bits, and rw------- has none to spare for others).
        Files.createFile(file, attributes);
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.US_ASCII,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            writer.write(content);
        }
    }

    private static boolean supportsPosix(Path file) {
        Path dir = file.toAbsolutePath().getParent();
        return dir.getFileSystem().supportedFileAttributeViews().contains("posix");
    }

    /** Reads a PKCS#8 PEM Ed25519 private key. */
    public static PrivateKey readPrivateKey(Path file) throws IOException {
        byte[] der = der(file, PRIVATE_LABEL);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IOException(file + " is not an Ed25519 private key (PKCS#8 PEM)", e);
        }
    }

    /** Reads an X.509 SubjectPublicKeyInfo PEM Ed25519 public key. */
    public static PublicKey readPublicKey(Path file) throws IOException {
        byte[] der = der(file, PUBLIC_LABEL);
        try {
            return KeyFactory.getInstance(ALGORITHM).generatePublic(new X509EncodedKeySpec(der));
        } catch (GeneralSecurityException e) {
            throw new IOException(file + " is not an Ed25519 public key (X.509 PEM)", e);
        }
    }

    /**
     * Every {@code *.pub} file of {@code dir} by key id (the file name without {@code .pub}). A file that is not a
     * valid Ed25519 public key fails the whole read: a trust store must not be silently partial.
     */
    public static Map<String, PublicKey> readPublicKeys(Path dir) throws IOException {
        Map<String, PublicKey> keys = new TreeMap<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + PUBLIC_SUFFIX)) {
            for (Path file : files) {
                if (!Files.isRegularFile(file)) {
                    continue;
                }
                String name = file.getFileName().toString();
                String keyId = name.substring(0, name.length() - PUBLIC_SUFFIX.length());
                if (!KEY_ID_PATTERN.matcher(keyId).matches()) {
                    throw new IOException(file + ": file name is not a valid key id");
                }
                keys.put(keyId, readPublicKey(file));
            }
        }
        return Map.copyOf(keys);
    }

    static String pem(String label, byte[] der) {
        return "-----BEGIN " + label + "-----\n"
                + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
                + "\n-----END " + label + "-----\n";
    }

    private static byte[] der(Path file, String label) throws IOException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = text.indexOf(begin);
        int to = text.indexOf(end);
        if (from < 0 || to < from) {
            throw new IOException(file + " has no " + label + " PEM block");
        }
        try {
            return Base64.getMimeDecoder().decode(text.substring(from + begin.length(), to));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + " holds invalid base64", e);
        }
    }
}
