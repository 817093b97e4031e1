package io.actiongate.cli.commands;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.PublicKey;
import java.security.Signature;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.actiongate.keyfiles.KeyFiles;

class KeyFilesTest {

    @TempDir
    Path dir;

    @Test
    void shouldWritePrivateKeyReadableByOwnerOnly() throws IOException {
        KeyFiles.GeneratedKey key = KeyFiles.generate(dir, "alice-1");

        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key.privateKeyFile())))
                .isEqualTo("rw-------");
        assertThat(key.privateKeyFile()).hasFileName("alice-1.key");
        assertThat(key.publicKeyFile()).hasFileName("alice-1.pub");
    }

    @Test
    void shouldRoundTripPemFilesIntoAWorkingKeyPair() throws Exception {
        KeyFiles.GeneratedKey key = KeyFiles.generate(dir, "alice-1");
        assertThat(Files.readString(key.privateKeyFile())).startsWith("-----BEGIN PRIVATE KEY-----\n");
        assertThat(Files.readString(key.publicKeyFile())).startsWith("-----BEGIN PUBLIC KEY-----\n");

        Signature signer = Signature.getInstance("Ed25519");
        signer.initSign(KeyFiles.readPrivateKey(key.privateKeyFile()));
        signer.update("payload".getBytes(StandardCharsets.UTF_8));
        byte[] signature = signer.sign();

        PublicKey publicKey = KeyFiles.readPublicKey(key.publicKeyFile());
        assertThat(publicKey.getEncoded()).isEqualTo(key.publicKey().getEncoded());
        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(publicKey);
        verifier.update("payload".getBytes(StandardCharsets.UTF_8));
        assertThat(verifier.verify(signature)).isTrue();
    }

    @Test
    void shouldRefuseToOverwriteAnExistingKey() throws IOException {
        KeyFiles.generate(dir, "alice-1");
        String before = Files.readString(dir.resolve("alice-1.key"));

        assertThatThrownBy(() -> KeyFiles.generate(dir, "alice-1")).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(Files.readString(dir.resolve("alice-1.key"))).isEqualTo(before);
    }

    @Test
    void shouldRefuseWhenOnlyThePublicFileExists() throws IOException {
        Files.writeString(dir.resolve("bob.pub"), "keep me");

        assertThatThrownBy(() -> KeyFiles.generate(dir, "bob")).isInstanceOf(FileAlreadyExistsException.class);
        assertThat(dir.resolve("bob.key")).doesNotExist();
        assertThat(Files.readString(dir.resolve("bob.pub"))).isEqualTo("keep me");
    }

    @Test
    void shouldRejectKeyIdsThatAreNotFileNameSafe() {
        assertThatThrownBy(() -> KeyFiles.generate(dir, "../escape")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key id");
    }

    @Test
    void shouldReadEveryPublicKeyOfADirectoryByKeyId() throws IOException {
        KeyFiles.GeneratedKey alice = KeyFiles.generate(dir, "alice-1");
        KeyFiles.GeneratedKey bob = KeyFiles.generate(dir, "bob.2");

        Map<String, PublicKey> keys = KeyFiles.readPublicKeys(dir);

        assertThat(keys).containsOnlyKeys("alice-1", "bob.2");
        assertThat(keys.get("alice-1").getEncoded()).isEqualTo(alice.publicKey().getEncoded());
        assertThat(keys.get("bob.2").getEncoded()).isEqualTo(bob.publicKey().getEncoded());
    }

    @Test
    void shouldFailTheWholeTrustStoreReadOnACorruptPublicKey() throws IOException {
        KeyFiles.generate(dir, "alice-1");
        Files.writeString(dir.resolve("mallory.pub"), "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n");

        assertThatThrownBy(() -> KeyFiles.readPublicKeys(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining("mallory.pub");
    }

    @Test
    void shouldRejectAPublicKeyFileGivenAsPrivateKey() throws IOException {
        KeyFiles.GeneratedKey key = KeyFiles.generate(dir, "alice-1");

        assertThatThrownBy(() -> KeyFiles.readPrivateKey(key.publicKeyFile())).isInstanceOf(IOException.class)
                .hasMessageContaining("PRIVATE KEY");
    }

    @Test
    void keysGenerateCommandShouldWriteBothFilesAndRefuseASecondRunWithOneLine() {
        Cli.Result first = Cli.run("keys", "generate", "--out", dir.toString(), "--key-id", "ops-1");
        assertThat(first.exitCode()).isZero();
        assertThat(first.out()).contains("ops-1.key").contains("ops-1.pub");
        assertThat(dir.resolve("ops-1.key")).exists();

        Cli.Result second = Cli.run("keys", "generate", "--out", dir.toString(), "--key-id", "ops-1");
        assertThat(second.exitCode()).isEqualTo(1);
        assertThat(second.err()).startsWith("error: refusing to overwrite").hasLineCount(1);
    }

    @Test
    void shouldPrintTheStackTraceOnlyWithVerbose() {
        Cli.run("keys", "generate", "--out", dir.toString(), "--key-id", "ops-1");

        Cli.Result verbose = Cli.run("--verbose", "keys", "generate", "--out", dir.toString(), "--key-id", "ops-1");

        assertThat(verbose.exitCode()).isEqualTo(1);
        assertThat(verbose.err()).contains("FileAlreadyExistsException").contains("\tat ");
    }
}
