package io.actiongate.storage;

import java.util.List;

/**
 * Bounds for one tool's attachments: per file, per action, how many, and which media types. Applied when staging,
 * at admission and at dispatch, so a limit lowered in between still holds.
 */
public record AttachmentLimits(long maxFileBytes, long maxActionBytes, int maxAttachments,
                               List<String> allowedContentTypes) {

    public AttachmentLimits {
        allowedContentTypes = List.copyOf(allowedContentTypes);
    }

    /** Whether the media type (parameters ignored) is on the allow-list. */
    public boolean allows(String contentType) {
        String media = ContentTypes.mediaType(contentType);
        return allowedContentTypes.stream().map(ContentTypes::mediaType).anyMatch(media::equals);
    }
}
