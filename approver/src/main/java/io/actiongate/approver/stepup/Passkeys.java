package io.actiongate.approver.stepup;

import java.util.List;
import java.util.Set;

import com.webauthn4j.WebAuthnManager;
import com.webauthn4j.credential.CredentialRecord;
import com.webauthn4j.credential.CredentialRecordImpl;
import com.webauthn4j.data.AuthenticationData;
import com.webauthn4j.data.AuthenticationParameters;
import com.webauthn4j.data.AuthenticationRequest;
import com.webauthn4j.data.PublicKeyCredentialParameters;
import com.webauthn4j.data.PublicKeyCredentialType;
import com.webauthn4j.data.RegistrationData;
import com.webauthn4j.data.RegistrationParameters;
import com.webauthn4j.data.RegistrationRequest;
import com.webauthn4j.data.attestation.statement.COSEAlgorithmIdentifier;
import com.webauthn4j.data.client.Origin;
import com.webauthn4j.data.client.challenge.DefaultChallenge;
import com.webauthn4j.server.ServerProperty;

/**
 * WebAuthn with webauthn4j: registers a person's passkey (user verification required) and verifies an assertion
 * whose challenge is the review's single-use challenge, so the authenticator's signature covers this one review.
 * Origin and relying-party id are the service's public origin and host.
 */
public final class Passkeys {

    /** ES256 and RS256, what platform authenticators and security keys offer. */
    public static final List<PublicKeyCredentialParameters> ALGORITHMS = List.of(
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.ES256),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.RS256),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.EdDSA));

    private final WebAuthnManager manager = WebAuthnManager.createNonStrictWebAuthnManager();
    private final Origin origin;
    private final String rpId;

    public Passkeys(String origin, String rpId) {
        this.origin = new Origin(origin);
        this.rpId = rpId;
    }

    public String rpId() {
        return rpId;
    }

    /** Verifies a registration answering {@code challenge}; the record to keep, or a failure. */
    public CredentialRecord register(byte[] challenge, byte[] attestationObject, byte[] clientDataJson)
            throws StepUpException {
        try {
            RegistrationData data = manager.parse(new RegistrationRequest(attestationObject, clientDataJson));
            ServerProperty sp = ServerProperty.builder().origin(origin).rpId(rpId)
                    .challenge(new DefaultChallenge(challenge)).build();
            manager.verify(data, new RegistrationParameters(sp, ALGORITHMS, true, true));
            return new CredentialRecordImpl(data.getAttestationObject(), data.getCollectedClientData(),
                    data.getClientExtensions(), Set.of());
        } catch (RuntimeException e) {
            // webauthn4j's verification and conversion errors, and Jackson's for malformed CBOR/JSON: all fail closed
            throw new StepUpException("the passkey registration does not verify: " + e.getClass().getSimpleName());
        }
    }

    /**
     * Verifies an assertion by {@code credential} over {@code challenge} with user verification; returns the new
     * signature counter.
     */
    public long verify(CredentialRecord credential, byte[] challenge, byte[] credentialId, byte[] userHandle,
                       byte[] authenticatorData, byte[] clientDataJson, byte[] signature) throws StepUpException {
        try {
            ServerProperty sp = ServerProperty.builder().origin(origin).rpId(rpId)
                    .challenge(new DefaultChallenge(challenge)).build();
            AuthenticationData data = manager.parse(new AuthenticationRequest(credentialId, userHandle,
                    authenticatorData, clientDataJson, signature));
            manager.verify(data, new AuthenticationParameters(sp, credential, List.of(credentialId), true, true));
            return data.getAuthenticatorData().getSignCount();
        } catch (RuntimeException e) {
            throw new StepUpException("the passkey assertion does not verify: " + e.getClass().getSimpleName());
        }
    }
}
