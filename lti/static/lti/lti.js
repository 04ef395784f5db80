// Lernpfad's pages inside a learning platform's frame (lti/views.py). No inline script: the
// Content-Security-Policy allows scripts from 'self' only. Platform storage follows 1EdTech's
// "LTI Client Side postMessages" (lti.put_data / lti.get_data).
"use strict";

(function () {
  const TIMEOUT_MS = 5000;
  const RESEND_MS = 250;

  function storageFrame(target) {
    if (target === "_parent") return window.parent;
    try {
      return window.parent.frames[target] || null;
    } catch (error) {
      return null;
    }
  }

  // Ask the platform's storage; resolves with the response, or null after TIMEOUT_MS. The
  // message is sent again every RESEND_MS until answered: the platform's page may still be
  // loading its listener when this frame is ready (put_data and get_data are idempotent).
  function ask(target, origin, message) {
    return new Promise(function (resolve) {
      const frame = storageFrame(target);
      if (!frame) return resolve(null);
      const id = "lernpfad-" + Math.random().toString(36).slice(2);
      const send = function () {
        frame.postMessage(Object.assign({ message_id: id }, message), origin);
      };
      const timer = window.setTimeout(function () { done(null); }, TIMEOUT_MS);
      const resend = window.setInterval(send, RESEND_MS);
      function done(value) {
        window.clearTimeout(timer);
        window.clearInterval(resend);
        window.removeEventListener("message", listen);
        resolve(value);
      }
      function listen(event) {
        if (event.origin !== origin || !event.data || event.data.message_id !== id) return;
        if (event.data.subject !== message.subject + ".response") return;
        done(event.data.error ? null : event.data);
      }
      window.addEventListener("message", listen);
      send();
    });
  }

  function cookiesWork() {
    document.cookie = "lernpfad_cookie_check=1; path=/; SameSite=None; Secure";
    const works = document.cookie.indexOf("lernpfad_cookie_check=1") !== -1;
    document.cookie = "lernpfad_cookie_check=; path=/; max-age=0; SameSite=None; Secure";
    return works;
  }

  function login(card) {
    const go = function () { window.location.replace(card.dataset.authUrl); };
    if (window.top === window.self) return go();
    const fallback = function () {
      if (cookiesWork()) return go();
      card.querySelector("[data-lti-waiting]").hidden = true;
      card.querySelector("[data-lti-blocked]").hidden = false;
    };
    if (!card.dataset.storageTarget) return fallback();
    ask(card.dataset.storageTarget, card.dataset.platformOrigin, {
      subject: "lti.put_data",
      key: card.dataset.storageKey,
      value: card.dataset.state,
    }).then(function (answer) { return answer ? go() : fallback(); });
  }

  function launchStorage(form) {
    ask(form.dataset.storageTarget, form.dataset.platformOrigin, {
      subject: "lti.get_data",
      key: form.dataset.storageKey,
    }).then(function (answer) {
      form.elements.lernpfad_storage_state.value = (answer && answer.value) || "";
      form.submit();
    });
  }

  function start() {
    const step = document.querySelector("[data-lti-step]");
    if (!step) return;
    switch (step.dataset.ltiStep) {
      case "login": return login(step);
      case "launch-storage": return launchStorage(step);
      case "open":
        // Opened as a window of its own (not framed): go straight on.
        if (window.top === window.self) window.location.replace(step.dataset.openUrl);
        return;
      case "autosubmit": return step.submit();
      case "registered": {
        const close = function () {
          (window.opener || window.parent).postMessage({ subject: "org.imsglobal.lti.close" }, "*");
        };
        step.querySelector("[data-lti-close]").addEventListener("click", close);
        return close();
      }
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
