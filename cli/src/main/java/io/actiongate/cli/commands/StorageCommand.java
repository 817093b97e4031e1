package io.actiongate.cli.commands;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import io.actiongate.storage.AttachmentStore;
import io.actiongate.storage.ObjectStoreConfig;
import io.actiongate.storage.S3AttachmentStore;

/** {@code actiongate storage init}: creates the attachments bucket and its expiry rule for abandoned objects. */
@Command(name = "storage", description = "Object storage for private attachments.",
        subcommands = StorageCommand.Init.class)
public final class StorageCommand extends OperatorCommand {

    @Override
    int execute() {
        spec.commandLine().usage(out());
        return 0;
    }

    @Command(name = "init", description = {
            "Create the attachments bucket if it is missing and install the lifecycle rule that expires abandoned "
                    + "staged objects after storage.staged.expiry.days (a backstop: the receipts cleaner deletes "
                    + "them first). Safe to run again.",
            "Exits non-zero when the rule could not be installed (e.g. the store does not implement lifecycle "
                    + "rules), unless --allow-missing-lifecycle is given."})
    static final class Init extends OperatorCommand {

        @Mixin
        StorageOptions storage = new StorageOptions();

        @Option(names = "--allow-missing-lifecycle", description = "Exit 0 even when the store did not install the "
                + "expiry rule (S3Proxy's filesystem backend, dev): abandoned staged objects then have no backstop "
                + "but the receipts cleaner.")
        boolean allowMissingLifecycle;

        @Override
        int execute() {
            ObjectStoreConfig config = storage.config();
            try (S3AttachmentStore store = S3AttachmentStore.create(config)) {
                AttachmentStore.InitResult result = store.init(config.stagedExpiryDays());
                out().println("bucket:    " + config.bucket() + (result.bucketCreated() ? " (created)" : " (exists)"));
                out().println("lifecycle: " + (result.lifecycleInstalled()
                        ? "objects below " + config.keyPrefix() + " expire after " + config.stagedExpiryDays()
                        + " day(s)"
                        : "not installed: " + result.lifecycleNote()));
                out().flush();
                if (!result.lifecycleInstalled() && !allowMissingLifecycle) {
                    // an automated install must notice: without the rule nothing expires abandoned stagings
                    throw new CommandFailure("the lifecycle rule was not installed, so abandoned staged objects "
                            + "never expire; install an expiry rule on the bucket yourself, or accept this with "
                            + "--allow-missing-lifecycle");
                }
            }
            return 0;
        }
    }
}
