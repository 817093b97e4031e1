package io.actiongate.approver.review;

/**
 * The signed-in person as the IdP's ID token says: {@code sub}, the configured org claim, and the email / name for
 * display. Never from a form field.
 */
public record Identity(String subject, String org, String email, String name) {

    /** What the page shows: the email when the IdP gave one, else the subject. */
    public String display() {
        return email != null && !email.isBlank() ? email : subject;
    }
}
