package io.actiongate.connector.spi;

/**
 * The {@code error_code} values the bundled connectors put into a {@link DispatchResult}. {@code RATE_LIMITED},
 * {@code PROVIDER_REJECTED}, {@code OPERATION_REFUSED} and {@code SCHEMA_INVALID} are reason codes of docs/contract.md
 * section 4 and keep their exact spelling; the rest only describe transport or process failures. Third-party connectors may use these or their own upper-case codes.
 */
public final class ErrorCodes {

    /** 429, or a retry time beyond the configured cap (then with status FAILED). */
    public static final String RATE_LIMITED = "RATE_LIMITED";
    /** The provider answered and refused; or the connector refused the input before sending anything. */
    public static final String PROVIDER_REJECTED = "PROVIDER_REJECTED";
    /** The TCP connection was refused or could not be opened: nothing was sent. */
    public static final String CONNECTION_REFUSED = "CONNECTION_REFUSED";
    /** The connection was not established within the connect timeout: nothing was sent. */
    public static final String CONNECT_TIMEOUT = "CONNECT_TIMEOUT";
    /** The request was sent (or may have been) and no answer came within the response timeout. */
    public static final String RESPONSE_TIMEOUT = "RESPONSE_TIMEOUT";
    /** The connection broke after the request may have been sent. */
    public static final String CONNECTION_LOST = "CONNECTION_LOST";
    /** The provider answered with a server error (5xx): it may or may not have acted. */
    public static final String PROVIDER_ERROR = "PROVIDER_ERROR";
    /** The provider answered with a status the connector cannot interpret (1xx, 3xx). */
    public static final String UNEXPECTED_RESPONSE = "UNEXPECTED_RESPONSE";
    /** The provider said "try again later" before the effect's content was sent (SMTP 4xx before DATA). */
    public static final String PROVIDER_UNAVAILABLE = "PROVIDER_UNAVAILABLE";
    /** The connector's classifier refused the input at dispatch time (auth/config, unbounded, unsupported). */
    public static final String OPERATION_REFUSED = "OPERATION_REFUSED";
    /** The configured binary is missing, not executable or could not be started: nothing ran. */
    public static final String EXECUTABLE_UNAVAILABLE = "EXECUTABLE_UNAVAILABLE";
    /** The command ran and exited with a non-zero status (carried in {@code http_status}). */
    public static final String COMMAND_FAILED = "COMMAND_FAILED";
    /** The command was still running at the timeout and was killed: it may have acted. */
    public static final String COMMAND_TIMEOUT = "COMMAND_TIMEOUT";
    /** The command was killed after it started (signal, executor shutdown): it may have acted. */
    public static final String COMMAND_KILLED = "COMMAND_KILLED";
    /** The input broke the connector's bounds at dispatch time; nothing was sent. */
    public static final String SCHEMA_INVALID = "SCHEMA_INVALID";
    /** An attachment was not loaded and verified by the executor; nothing was sent. A reason code. */
    public static final String ATTACHMENT_INVALID = "ATTACHMENT_INVALID";

    private ErrorCodes() {
    }
}
