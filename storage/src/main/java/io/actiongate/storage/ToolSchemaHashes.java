package io.actiongate.storage;

import java.util.Optional;

/** The live {@code ToolDescriptor.schema_hash} of a tool, as the control plane last published it. */
public interface ToolSchemaHashes {

    /** False until the source has read everything published before it started; then answers are current. */
    boolean ready();

    /** The current schema hash of {@code provider}'s tool {@code toolName}; empty when no descriptor exists. */
    Optional<String> schemaHash(String provider, String toolName);
}
