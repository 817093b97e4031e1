package io.actiongate.scan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutputDetectorsTest {

    private final CredentialScanner outputs = CredentialScanner.forOutputs();

    private Optional<String> detector(String text) {
        return outputs.scan(text).map(Finding::detector);
    }

    @Test
    void shouldFindBase64OfAttachmentContent() {
        byte[] bytes = new byte[200];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 37 + 11);
        }
        assertThat(detector("{\"file\":\"" + Base64.getEncoder().encodeToString(bytes) + "\"}"))
                .contains("base64_blob");
        assertThat(detector("data=" + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes)))
                .contains("base64_blob");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "https://bucket.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDEXAMPLE%2F2026&X-Amz-Signature=abcdef0123",
        "http://127.0.0.1:9000/b/k?AWSAccessKeyId=AKIDEXAMPLE&Expires=1700000000&Signature=abcdEFGH%3D",
        "https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=0a1b2c3d4e5f",
        "https://acct.blob.core.windows.net/c/b?sv=2024-01-01&se=2026-12-01&sig=abcDEF123%3D"})
    void shouldFindPresignedUrls(String url) {
        assertThat(detector("upload to " + url)).contains("presigned_url");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/home/alice/report.pdf", "/tmp/junit123/s3/bucket/obj", "/Users/bob/Desktop/a.txt",
        "C:\\Users\\carol\\file.pdf", "~/Downloads/x.pdf", "file:///etc/passwd", "/work/wt/x"})
    void shouldFindLocalPaths(String path) {
        assertThat(detector("staged from " + path)).contains("local_path");
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "sha256:0b2d8f4e5b7c9a1e3f5d7b9c1e3a5f7d9b1c3e5a7f9d1b3c5e7a9f1d3b5c7e9a",
        "attachments/T-1/call-1/8c6f0b4e2a1d3c5b7e9f0a2c4e6b8d0f",
        "attachments/AttachmentPipelineIT-shouldDeliverTwo-9/c-two-42/8c6f0b4e2a1d3c5b7e9f0a2c4e6b8d0f",
        "idem-ag-AttachmentPipelineIT-shouldRefuseAnObjectSwappedAfterApprovalAtDispatch-1a2b3c-swap",
        "https://provider.example/hooks/send_report",
        "/v1/actions/T-1/c-1",
        "reason: attachments[0]: hash mismatch: SHA-256 of object attachments/T-1/c/ab differs",
        "http://127.0.0.1:8080/metrics?name=actiongate_attachments_deleted_total"})
    void shouldLeaveDigestsKeysRoutesAndPlainUrlsAlone(String text) {
        assertThat(detector(text)).isEmpty();
    }

    @Test
    void shouldNotApplyOutputRulesToProposalInputs() {
        assertThat(CredentialScanner.defaults().scan("/home/alice/report.pdf")).isEmpty();
    }
}
