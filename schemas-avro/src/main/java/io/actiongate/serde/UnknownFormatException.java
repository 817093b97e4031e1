package io.actiongate.serde;

import org.apache.kafka.common.header.Headers;

/**
 * A role met a record or a stored value in a format version it does not read, written by a newer actiongate: on a
 * topic only actiongate's roles write, or in a store or changelog of its own (docs/contract.md section 3, "Versions
 * a role does not read"). It is thrown before anything is changed and stops the role; its message is the one line
 * the role prints. Never a dead letter, never skipped, never rewritten: skipping a reservation a newer gate wrote
 * would lose its dispatch.
 */
public final class UnknownFormatException extends RuntimeException {

    private static final long serialVersionUID = 1L;
    private static final int MAX_PART = 200;

    private final String where;
    private final String version;
    private final String writer;

    /**
     * @param where   what holds it, e.g. {@code actiongate.attempts-2@118} or {@code gate-actions (task 0_3)}
     * @param version the format and its version as far as this build can tell, e.g. {@code AttemptReservation v3}
     *                or {@code AttemptReservation with fingerprint 93edc24d1edf4399}
     * @param writer  the release that wrote it, when the record names it ({@code actiongate 0.2.0}), else null
     * @param reads   the versions this build reads, e.g. {@code v1, v2}
     */
    public UnknownFormatException(String where, String version, String writer, String reads) {
        super(Release.current() + " stops: " + clean(where) + " holds " + clean(version) + " written by "
                + (writer == null ? "a newer actiongate release" : clean(writer)) + ", which this release does not "
                + "read (it reads " + clean(reads) + "); nothing was changed: run a release that reads it "
                + "(docs/operating.md, Upgrades)");
        this.where = clean(where);
        this.version = clean(version);
        this.writer = writer == null ? null : clean(writer);
    }

    /** What holds the record or value. */
    public String where() {
        return where;
    }

    /** The format and version met. */
    public String version() {
        return version;
    }

    /** The release that wrote it, when the record names it; else null. */
    public String writer() {
        return writer;
    }

    /**
     * A record that is not in a form this release writes, described as {@code what}: with the format its
     * {@link AvroSerde#FORMAT_HEADER} states and its writer when the header names one (a state record of a kind a
     * newer release added), else as {@code what} alone, by a newer release.
     */
    public static UnknownFormatException stated(String where, String what, Headers headers, String reads) {
        AvroSerde.Stated stated = AvroSerde.Stated.of(headers);
        boolean named = stated != null && stated.writer() != null;
        return new UnknownFormatException(where, what + (named ? " (" + stated.format() + ")" : ""),
                named ? stated.writer() : null, reads);
    }

    /** The exception in {@code e}'s cause chain, or null: Kafka Streams and the roles' loops wrap what they catch. */
    public static UnknownFormatException in(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof UnknownFormatException u) {
                return u;
            }
        }
        return null;
    }

    /** One line, printable, bounded: a header value or a stored string written by someone else may be neither. */
    static String clean(String s) {
        if (s == null) {
            return "";
        }
        StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_PART));
        for (int i = 0; i < s.length() && out.length() < MAX_PART; i++) {
            char c = s.charAt(i);
            out.append(Character.isISOControl(c) ? ' ' : c);
        }
        return s.length() > MAX_PART ? out + "..." : out.toString();
    }
}
