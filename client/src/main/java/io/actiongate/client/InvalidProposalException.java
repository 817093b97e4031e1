package io.actiongate.client;

/** A proposal the gate would reject as malformed, refused before anything is published. */
public final class InvalidProposalException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String field;

    public InvalidProposalException(String field, String problem) {
        super("proposal: " + field + " " + problem);
        this.field = field;
    }

    /** The snake_case field at fault. */
    public String field() {
        return field;
    }
}
