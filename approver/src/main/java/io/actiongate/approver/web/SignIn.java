package io.actiongate.approver.web;

import java.io.IOException;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.actiongate.approver.oidc.OidcClient;
import io.actiongate.approver.oidc.OidcException;

/**
 * Sign-in: {@code /login} starts the OIDC authorization code flow (PKCE, state in a short-lived SameSite=Lax login
 * cookie), {@code /oidc/callback} finishes it and creates the server-side session.
 */
final class SignIn {

    private static final Logger LOG = LoggerFactory.getLogger(SignIn.class);

    private final ApprovalApp.Deps d;
    private final PageKit kit;

    SignIn(ApprovalApp.Deps d, PageKit kit) {
        this.d = d;
        this.kit = kit;
    }

    void login(Exchange ex) throws IOException {
        try {
            OidcClient.Begin begin = d.oidc().begin(ex.query("return"));
            ex.setCookie(ApprovalApp.LOGIN_COOKIE, begin.loginCookie(), Exchange.SameSite.LAX, 600);
            ex.redirect(begin.authorizationUrl().toString());
        } catch (OidcException e) {
            LOG.warn("sign-in cannot start: {}", e.getMessage());
            ex.html(503, kit.message(null, "Sign-in unavailable", e.getMessage(), null, null));
        }
    }

    void callback(Exchange ex, ApprovalApp app) throws IOException {
        // a step-up's answer, a refusal included (it counts as a failed step-up), goes to the step-up's own path
        if (d.oidc().isStepUp(ex.cookie(ApprovalApp.STEPUP_COOKIE))
                && !d.oidc().matchesLogin(ex.query("state"), ex.cookie(ApprovalApp.LOGIN_COOKIE))) {
            app.finishIdpStepUp(ex);
            return;
        }
        ex.clearCookie(ApprovalApp.LOGIN_COOKIE, Exchange.SameSite.LAX);
        if (ex.query("error") != null) {
            PageKit.AUDIT.info("refused sign-in: the identity provider answered error={} remote={}",
                    PageKit.input(ex.query("error")), ex.remote());
            ex.html(401, kit.message(null, "Not signed in", "The identity provider did not sign you in.", null,
                    PageKit.link("/login", "Try again")));
            return;
        }
        try {
            OidcClient.Completed done = d.oidc().complete(ex.query("state"), ex.cookie(ApprovalApp.LOGIN_COOKIE),
                    ex.query("code"));
            Session s = d.sessions().create(done.identity());
            ex.setCookie(ApprovalApp.SESSION_COOKIE, d.sessions().seal(s), Exchange.SameSite.STRICT, -1);
            PageKit.AUDIT.info("signed in subject={} org={} remote={}", PageKit.safe(done.identity().subject()),
                    PageKit.safe(done.identity().org()), ex.remote());
            // a page of our own, not a redirect: the SameSite=Strict cookie is sent on the navigation it starts
            ex.html(200, kit.pages.render("signed-in", Map.of("returnTo", done.returnTo())));
        } catch (OidcException e) {
            PageKit.AUDIT.info("refused sign-in: {} remote={}", e.getMessage(), ex.remote());
            ex.html(401, kit.message(null, "Not signed in", e.getMessage(), null, PageKit.link("/login", "Try again")));
        }
    }
}
