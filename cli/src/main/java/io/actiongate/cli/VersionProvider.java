package io.actiongate.cli;

import picocli.CommandLine.IVersionProvider;

/** The version from the fat jar's manifest; {@code development} when run from classes. */
final class VersionProvider implements IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = Main.class.getPackage().getImplementationVersion();
        return new String[] {
            "actiongate " + (version == null ? "development" : version),
            "Java " + System.getProperty("java.version") + ", " + System.getProperty("java.vm.name")
        };
    }
}
