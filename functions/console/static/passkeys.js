// Passkeys (served by the stack, no inline code): a form marked data-passkey-create or
// data-passkey-get holds the pool's options (WebAuthn's JSON encoding); on submit the browser
// makes or uses a passkey, and its answer goes back in the form's "credential" field.
"use strict";

function bytesOf(base64url) {
  const base64 = base64url.replace(/-/g, "+").replace(/_/g, "/");
  const padded = base64 + "=".repeat((4 - (base64.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0)).buffer;
}

function base64urlOf(buffer) {
  let text = "";
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// PublicKeyCredentialCreationOptionsJSON -> the options navigator.credentials.create takes.
function creationOptions(json) {
  const options = { ...json, challenge: bytesOf(json.challenge), user: { ...json.user, id: bytesOf(json.user.id) } };
  options.excludeCredentials = (json.excludeCredentials || []).map((each) => ({ ...each, id: bytesOf(each.id) }));
  return options;
}

// PublicKeyCredentialRequestOptionsJSON -> the options navigator.credentials.get takes.
function requestOptions(json) {
  const options = { ...json, challenge: bytesOf(json.challenge) };
  options.allowCredentials = (json.allowCredentials || []).map((each) => ({ ...each, id: bytesOf(each.id) }));
  return options;
}

// A PublicKeyCredential -> RegistrationResponseJSON or AuthenticationResponseJSON.
function credentialJson(credential) {
  const answer = credential.response;
  const response = { clientDataJSON: base64urlOf(answer.clientDataJSON) };
  if (answer.attestationObject) {
    response.attestationObject = base64urlOf(answer.attestationObject);
    response.transports = answer.getTransports ? answer.getTransports() : [];
  } else {
    response.authenticatorData = base64urlOf(answer.authenticatorData);
    response.signature = base64urlOf(answer.signature);
    if (answer.userHandle) response.userHandle = base64urlOf(answer.userHandle);
  }
  return JSON.stringify({
    id: credential.id,
    rawId: base64urlOf(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment || undefined,
    response,
    clientExtensionResults: {},
  });
}

function setUpPasskeyForm(form, ask) {
  const problem = form.querySelector("[data-passkey-error]");
  form.addEventListener("submit", async (event) => {
    if (form.elements.credential.value) return; // the answer is in: the form goes
    event.preventDefault();
    try {
      const credential = await ask(form);
      form.elements.credential.value = credentialJson(credential);
      form.submit();
    } catch (error) {
      problem.textContent = `Your browser made no passkey answer (${error.name}): try again.`;
      problem.hidden = false;
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  if (!window.PublicKeyCredential) {
    for (const form of document.querySelectorAll("form[data-passkey-create], form[data-passkey-get]")) {
      const problem = form.querySelector("[data-passkey-error]");
      problem.textContent = "This browser has no passkeys: sign in with your password.";
      problem.hidden = false;
    }
    return;
  }
  for (const form of document.querySelectorAll("form[data-passkey-create]")) {
    const options = creationOptions(JSON.parse(form.dataset.passkeyCreate));
    setUpPasskeyForm(form, () => navigator.credentials.create({ publicKey: options }));
  }
  for (const form of document.querySelectorAll("form[data-passkey-get]")) {
    const options = requestOptions(JSON.parse(form.dataset.passkeyGet));
    setUpPasskeyForm(form, () => navigator.credentials.get({ publicKey: options }));
  }
});
