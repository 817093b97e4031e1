package io.actiongate.cli.commands;

import java.nio.file.Path;

import picocli.CommandLine.Option;

import io.actiongate.config.ConfigLoader;
import io.actiongate.storage.ObjectStoreConfig;

/** Where the object store is: the {@code storage.*} keys of a configuration file (a picocli mixin). */
public final class StorageOptions {

    @Option(names = "--storage-config", paramLabel = "FILE",
            description = "Configuration file (.properties or .yaml) holding the storage.* keys; environment "
                    + "overrides (ACTIONGATE_STORAGE_...) apply. Credentials are env:/file: references.")
    Path configFile;

    ObjectStoreConfig config() {
        return ObjectStoreConfig.fromNodeConfig(ConfigLoader.load(configFile));
    }
}
