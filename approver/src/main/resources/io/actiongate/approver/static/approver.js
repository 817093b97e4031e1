// The approval page's only script: WebAuthn step-up and passkey registration. Served from this origin under a
// strict Content-Security-Policy (no inline script). Without it, the one-time code field still works.
(function () {
  'use strict';

  function b64u(buffer) {
    var bytes = new Uint8Array(buffer), s = '';
    for (var i = 0; i < bytes.length; i++) { s += String.fromCharCode(bytes[i]); }
    return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }

  function unb64u(text) {
    var s = text.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) { s += '='; }
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { out[i] = bin.charCodeAt(i); }
    return out.buffer;
  }

  function set(form, name, value) {
    var input = form.querySelector('input[name="' + name + '"]');
    if (!input) {
      input = document.createElement('input');
      input.type = 'hidden';
      input.name = name;
      form.appendChild(input);
    }
    input.value = value;
  }

  function fail(id, message) {
    var p = document.getElementById(id);
    if (p) { p.textContent = message; p.hidden = false; }
  }

  function setupDecide(form) {
    var busy = false;
    form.addEventListener('submit', function (event) {
      var button = event.submitter;
      if (busy) { event.preventDefault(); return; }
      if (!button || !button.hasAttribute('data-stepup')) { busy = true; return; }
      var totp = form.querySelector('input[name="totp"]');
      if (totp && totp.value.trim() !== '') { busy = true; return; }
      var ids = (form.dataset.credentials || '').split(',').filter(function (x) { return x !== ''; });
      if (ids.length === 0 || !window.PublicKeyCredential) { return; }
      event.preventDefault();
      busy = true;
      navigator.credentials.get({ publicKey: {
        challenge: unb64u(form.dataset.challenge),
        rpId: form.dataset.rpId,
        userVerification: 'required',
        timeout: 120000,
        allowCredentials: ids.map(function (id) { return { type: 'public-key', id: unb64u(id) }; })
      } }).then(function (credential) {
        var r = credential.response;
        set(form, 'webauthn_id', b64u(credential.rawId));
        set(form, 'webauthn_client_data', b64u(r.clientDataJSON));
        set(form, 'webauthn_authenticator_data', b64u(r.authenticatorData));
        set(form, 'webauthn_signature', b64u(r.signature));
        set(form, 'webauthn_user_handle', r.userHandle ? b64u(r.userHandle) : '');
        if (button.name) { set(form, button.name, button.value); }
        form.submit();
      }).catch(function (e) {
        busy = false;
        fail('stepup-error', 'The passkey step-up did not complete (' + e.name + '). Nothing was published.');
      });
    });
  }

  function setupRegister(form) {
    form.addEventListener('submit', function (event) {
      if (form.querySelector('input[name="attestation_object"]').value !== '') { return; }
      event.preventDefault();
      if (!window.PublicKeyCredential) { fail('register-error', 'This browser has no passkey support.'); return; }
      navigator.credentials.create({ publicKey: {
        challenge: unb64u(form.dataset.challenge),
        rp: { id: form.dataset.rpId, name: 'actiongate approval' },
        user: { id: unb64u(form.dataset.userId), name: form.dataset.userName, displayName: form.dataset.userName },
        pubKeyCredParams: [{ type: 'public-key', alg: -7 }, { type: 'public-key', alg: -257 }, { type: 'public-key', alg: -8 }],
        authenticatorSelection: { userVerification: 'required', residentKey: 'preferred' },
        attestation: 'none',
        timeout: 120000
      } }).then(function (credential) {
        set(form, 'attestation_object', b64u(credential.response.attestationObject));
        set(form, 'client_data', b64u(credential.response.clientDataJSON));
        form.submit();
      }).catch(function (e) {
        fail('register-error', 'The passkey was not registered (' + e.name + ').');
      });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    var decide = document.getElementById('decide');
    if (decide) { setupDecide(decide); }
    var confirm = document.getElementById('confirm-factor');
    if (confirm) { setupDecide(confirm); }
    var register = document.getElementById('register');
    if (register) { setupRegister(register); }
  });
})();
