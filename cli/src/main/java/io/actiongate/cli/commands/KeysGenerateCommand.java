package io.actiongate.cli.commands;

import java.nio.file.Path;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import io.actiongate.keyfiles.KeyFiles;

/** {@code actiongate keys generate --out DIR --key-id ID}. */
@Command(name = "generate", description = {
        "Generate an Ed25519 approver key pair: ID.key (PKCS#8 PEM, owner read/write only) and ID.pub (X.509 PEM).",
        "Give ID.pub to the gate's trusted-keys directory; keep ID.key secret. Never overwrites a file."})
public final class KeysGenerateCommand extends OperatorCommand {

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Directory for the key files.")
    Path out;

    @Option(names = "--key-id", required = true, paramLabel = "ID",
            description = "Key id: names the files and goes into every decision signed with the key.")
    String keyId;

    @Override
    int execute() throws Exception {
        KeyFiles.GeneratedKey key = KeyFiles.generate(out, keyId);
        out().println("private key: " + key.privateKeyFile());
        out().println("public key:  " + key.publicKeyFile());
        out().flush();
        return 0;
    }
}
