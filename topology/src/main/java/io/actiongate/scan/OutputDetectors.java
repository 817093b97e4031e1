package io.actiongate.scan;

import java.util.List;

/**
 * Detectors for what must never appear in an actiongate output (topics, stores, logs, metrics) on top of the
 * credential detectors: attachment content as base64, local filesystem paths, and presigned or signed upload URLs.
 * They are not applied to proposal inputs, where a path or an encoded blob may be legitimate tool input; they
 * audit what actiongate itself writes (docs/contract.md section 4, invariant 5).
 */
final class OutputDetectors {

    private OutputDetectors() {
    }

    /** Signed URLs and local paths: tried before the credential detectors. */
    static List<Detector> specific() {
        return List.of(
                PatternDetector.of("presigned_url",
                        Hints.anyOfIgnoringCase("signature=", "credential=", "sig=", "security-token=",
                                "awsaccesskeyid="),
                        "Signed URL query: X-Amz-Signature/Credential/Security-Token, X-Goog-Signature/Credential, "
                                + "S3 v2 Signature+AWSAccessKeyId, Azure SAS sig",
                        "(?i)[?&](?:x-amz-(?:signature|credential|security-token)|x-goog-(?:signature|credential)"
                                + "|signature|awsaccesskeyid|sig)=[^&\\s\"']{6,}+"),
                PatternDetector.of("local_path",
                        Hints.anyOfIgnoringCase("/home/", "/Users/", "/tmp/", "/var/", "/root/", "/etc/", "/run/",
                                "/mnt/", "/private/", "/opt/", "/srv/", "/work/", ":\\", "file:/", "~/"),
                        "Absolute local path: /home /Users /tmp /var /root /etc /run /mnt /private /opt /srv /work, "
                                + "a Windows drive path, ~/ or a file: URL",
                        "(?<![A-Za-z0-9_.:/~\\-])(?:/(?:home|Users|tmp|var|root|etc|run|mnt|private|opt|srv|work)/"
                                + "[^\\s\"'<>|]++|[A-Za-z]:\\\\[^\\s\"'<>|]++|~/[^\\s\"'<>|]++)"
                                + "|(?i)file:/[^\\s\"']++"));
    }

    /** Base64 runs: tried after every more specific detector. */
    static List<Detector> generic() {
        return List.of(
                PatternDetector.checked("base64_blob",
                        Hints.NONE,
                        "Base64 or base64url run of >= 64 chars mixing upper case, lower case and digits at >= "
                                + BLOB_MIN_BITS_PER_CHAR + " bits/char: encoded bytes, not hex digests, object keys "
                                + "or names",
                        "(?<![A-Za-z0-9+/_\\-])([A-Za-z0-9+/_\\-]{64,}+={0,2})",
                        1, OutputDetectors::isEncodedBlob));
    }

    /** Encoded random-looking bytes reach ~5.5 bits/char over 64 chars; hex tops out at 4, keys and names near 4.3. */
    static final double BLOB_MIN_BITS_PER_CHAR = 4.8;

    /**
     * A long random-looking run with one unbroken stretch of >= 32 chars that itself mixes case and digits. The
     * stretch rule keeps path-like keys and dash-joined names out: their parts are short or lack digits.
     */
    static boolean isEncodedBlob(String run) {
        if (!Entropy.hasUpperLowerAndDigit(run) || Entropy.bitsPerChar(run) < BLOB_MIN_BITS_PER_CHAR) {
            return false;
        }
        for (String stretch : run.split("[/_\\-]")) {
            if (stretch.length() >= 32 && Entropy.hasUpperLowerAndDigit(stretch)) {
                return true;
            }
        }
        return false;
    }
}
