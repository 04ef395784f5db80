/* Lernpfad: small progressive enhancements. Every page works without this file; it adds copy
   buttons, records which sections of a step were read, keyboard shortcuts in the review session,
   and the exam's countdown and autosave. No inline script is needed (strict CSP). */
(function () {
  "use strict";

  /* Keyboard hints and other script-only parts show only where this file runs (.js-only). */
  document.documentElement.classList.add("js");

  function announce(text) {
    var region = document.getElementById("live-region");
    if (!region) return;
    region.textContent = "";
    window.setTimeout(function () {
      region.textContent = text;
    }, 50);
  }

  function csrfToken() {
    var input = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (input) return input.value;
    var match = document.cookie.match(/(?:^|; )csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : "";
  }

  function sendJson(method, url, body) {
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json",
        "X-CSRFToken": csrfToken(),
      },
      body: JSON.stringify(body),
    });
  }

  /* Copy buttons next to commands. */
  function initCopyButtons() {
    var buttons = document.querySelectorAll("[data-copy-target]");
    if (!navigator.clipboard) return;
    buttons.forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var target = document.getElementById(button.getAttribute("data-copy-target"));
        if (!target) return;
        navigator.clipboard.writeText(target.textContent).then(
          function () {
            announce(document.documentElement.lang === "en" ? "Copied." : "Kopiert.");
            var label = button.textContent;
            button.textContent = "✓";
            window.setTimeout(function () {
              button.textContent = label;
            }, 1500);
          },
          function () {
            announce(document.documentElement.lang === "en" ? "Copy failed." : "Kopieren fehlgeschlagen.");
          }
        );
      });
    });
  }

  /* Step reader: reading the page (a GET) records nothing, so the page itself tells the
     progress API that the learner opened the step ("opened" moves the resume point), then which
     sections came into view (once each). A page the browser prerenders waits until it is
     shown; one restored from the back-forward cache counts as opened again. */
  function initStepOpened(then) {
    var root = document.querySelector("[data-progress-url]");
    if (!root) return;
    var url = root.getAttribute("data-progress-url");
    function send() {
      sendJson("POST", url, { event: "opened" }).then(
        function (response) {
          root.setAttribute("data-opened", response.ok ? "recorded" : "failed");
          then();
        },
        function () {
          root.setAttribute("data-opened", "failed");
          then();
        }
      );
    }
    if (document.prerendering) {
      document.addEventListener("prerenderingchange", send, { once: true });
    } else {
      send();
    }
    window.addEventListener("pageshow", function (event) {
      if (event.persisted) sendJson("POST", url, { event: "opened" });
    });
  }

  function initSectionTracking() {
    var root = document.querySelector("[data-progress-url]");
    if (!root || !("IntersectionObserver" in window)) return;
    var url = root.getAttribute("data-progress-url");
    var seen = {};
    var observer = new IntersectionObserver(
      function (entries) {
        entries.forEach(function (entry) {
          if (!seenEnough(entry)) return;
          var kind = entry.target.getAttribute("data-section-kind");
          observer.unobserve(entry.target);
          if (seen[kind]) return;
          seen[kind] = true;
          sendJson("POST", url, { event: "section_viewed", section: kind }).then(function (response) {
            if (response.ok) markSectionRead(kind);
          });
        });
      },
      { threshold: [0, 0.01, 0.02, 0.05, 0.1, 0.2] }
    );
    /* Seen: a fifth of the section in view, or half the screen filled by it (a section taller
       than five screens never shows a fifth at once, least of all on a phone). */
    function seenEnough(entry) {
      if (!entry.isIntersecting) return false;
      var screen = entry.rootBounds ? entry.rootBounds.height : window.innerHeight;
      return entry.intersectionRatio >= 0.2 || entry.intersectionRect.height >= screen * 0.5;
    }
    document.querySelectorAll("[data-section-kind]").forEach(function (section) {
      observer.observe(section);
    });
  }

  /* Review session: Space reveals, 1-4 rate, u undoes. */
  function initReviewKeys() {
    var session = document.querySelector("[data-review-session]");
    if (!session) return;
    var started = Date.now();
    var durationInputs = session.querySelectorAll("input[name=duration_ms]");
    session.addEventListener("submit", function () {
      durationInputs.forEach(function (input) {
        input.value = String(Date.now() - started);
      });
    });
    document.addEventListener("keydown", function (event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      var tag = (event.target && event.target.tagName) || "";
      if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
      var reveal = document.getElementById("review-reveal");
      var back = document.getElementById("review-back");
      if (event.key === " " || event.key === "Spacebar") {
        if (reveal && back && back.hidden) {
          event.preventDefault();
          reveal.click();
        }
        return;
      }
      if (/^[1-4]$/.test(event.key)) {
        if (back && !back.hidden) {
          var button = document.querySelector("[data-rating='" + event.key + "']");
          if (button) {
            event.preventDefault();
            button.click();
          }
        }
        return;
      }
      if (event.key === "u" || event.key === "U") {
        var undo = document.getElementById("review-undo");
        if (undo) {
          event.preventDefault();
          undo.click();
        }
      }
    });
    var revealButton = document.getElementById("review-reveal");
    var backPanel = document.getElementById("review-back");
    var details = session.querySelector("[data-review-details]");
    if (revealButton && backPanel) {
      /* Without JS the answer waits in a closed <details>; with JS the button (and Space)
         reveal it, so the disclosure stays open and its summary goes. */
      if (details) {
        details.open = true;
        details.querySelector("summary").hidden = true;
      }
      backPanel.hidden = true;
      revealButton.hidden = false;
      revealButton.addEventListener("click", function () {
        backPanel.hidden = false;
        revealButton.hidden = true;
        var first = backPanel.querySelector("[data-rating='3']");
        if (first) first.focus();
      });
      revealButton.focus();
    }
  }

  /* Exam attempt: countdown synced to the server's deadline, and autosave through the API. */
  function initExam() {
    var form = document.querySelector("[data-exam-attempt]");
    if (!form) return;
    var deadline = Date.parse(form.getAttribute("data-deadline"));
    var serverNow = Date.parse(form.getAttribute("data-server-now"));
    /* The offset corrects a client clock that differs from the server's. */
    var offset = serverNow - Date.now();
    var output = document.getElementById("exam-time-left");
    var lang = document.documentElement.lang;
    var warned = false;

    function remaining() {
      return deadline - (Date.now() + offset);
    }

    function tick() {
      var ms = Math.max(0, remaining());
      var total = Math.floor(ms / 1000);
      var minutes = Math.floor(total / 60);
      var seconds = total % 60;
      if (output) output.textContent = minutes + ":" + (seconds < 10 ? "0" : "") + seconds;
      if (!warned && ms <= 60000 && ms > 0) {
        warned = true;
        announce(lang === "en" ? "One minute left." : "Noch eine Minute.");
      }
      if (ms <= 0) {
        window.clearInterval(timer);
        announce(lang === "en" ? "Time is up." : "Die Zeit ist abgelaufen.");
        save().finally(function () {
          window.location.href = form.getAttribute("data-result-url");
        });
      }
    }

    var saveUrl = form.getAttribute("data-save-url");
    var status = document.getElementById("exam-save-status");
    var pending = null;
    /* Items whose answer the server refused (a number that is no number): left out of the
       saves until the learner changes them, so the other answers are still saved. */
    var refused = {};

    /* One save at a time. Each save sends every answer; two in flight could reach the server
       in the other order, and the older answers would overwrite the newer ones. A change while
       a save is out is sent when it is back, with the answers as they are then. */
    var saving = null;
    var changedMeanwhile = false;

    function answerOf(fieldset) {
      var item = Number(fieldset.getAttribute("data-item"));
      var kind = fieldset.getAttribute("data-kind");
      /* The "mark for later" box is the page's, not an answer: it is never sent. */
      var typed = fieldset.querySelector("input:not([data-mark-item])");
      if (kind === "short_answer") return { item: item, text: typed.value };
      if (kind === "numerical") return { item: item, number: typed.value };
      if (kind === "matching") {
        var pairs = [];
        fieldset.querySelectorAll("select[data-option]").forEach(function (select) {
          if (select.value) pairs.push({ option: select.getAttribute("data-option"), choice: select.value });
        });
        return { item: item, pairs: pairs };
      }
      var chosen = [];
      fieldset.querySelectorAll("input:checked:not([data-mark-item])").forEach(function (input) {
        chosen.push(input.value);
      });
      return { item: item, selected: chosen };
    }

    function collect() {
      var answers = [];
      form.querySelectorAll("[data-item]").forEach(function (fieldset) {
        var answer = answerOf(fieldset);
        if (!refused[answer.item]) answers.push(answer);
      });
      return answers;
    }

    function showProblem(fieldset, message) {
      var error = fieldset.querySelector(".item-error");
      if (error) {
        error.textContent = message;
        error.hidden = !message;
      }
      fieldset.querySelectorAll("input[type=text], select").forEach(function (control) {
        if (message) control.setAttribute("aria-invalid", "true");
        else control.removeAttribute("aria-invalid");
      });
    }

    function markRefused(body) {
      var problems = (body && body.error && Array.isArray(body.error.detail)) ? body.error.detail : [];
      var marked = 0;
      problems.forEach(function (problem) {
        var fieldset = problem && form.querySelector("[data-item='" + problem.item + "']");
        if (!fieldset) return;
        refused[problem.item] = true;
        showProblem(fieldset, problem.message || (lang === "en" ? "This answer cannot be saved." : "Diese Antwort kann nicht gespeichert werden."));
        marked += 1;
      });
      return marked;
    }

    function savedText() {
      if (Object.keys(refused).length) {
        return lang === "en" ? "Saved, except the marked answers." : "Gespeichert, außer den markierten Antworten.";
      }
      return lang === "en" ? "All answers saved." : "Alle Antworten gespeichert.";
    }

    /* One PUT with every answer. After a 400 nothing was saved: the refused answers are
       marked and left out, and the others are sent again. */
    function send() {
      return sendJson("PUT", saveUrl, { answers: collect() })
        .then(function (response) {
          if (response.ok) return "saved";
          if (response.status !== 400) return "refused";
          return response.json().then(function (body) {
            if (!markRefused(body)) return "refused";
            announce(lang === "en" ? "An answer could not be saved." : "Eine Antwort konnte nicht gespeichert werden.");
            return sendJson("PUT", saveUrl, { answers: collect() }).then(function (again) {
              return again.ok ? "saved" : "refused";
            });
          });
        })
        .catch(function () {
          return "offline";
        });
    }

    function showOutcome(outcome) {
      if (!status) return;
      if (outcome === "saved") {
        status.textContent = savedText();
      } else if (outcome === "refused") {
        status.textContent = lang === "en" ? "Not saved." : "Nicht gespeichert.";
      } else {
        status.textContent = lang === "en" ? "Offline – not saved." : "Offline – nicht gespeichert.";
      }
    }

    /* Resolves once every answer given so far has been sent (and its answer has come back). */
    function save() {
      if (saving) {
        changedMeanwhile = true;
        return saving;
      }
      changedMeanwhile = false;
      if (status) status.textContent = lang === "en" ? "Saving…" : "Speichert …";
      saving = send()
        .then(function (outcome) {
          saving = null;
          if (changedMeanwhile) return save();
          showOutcome(outcome);
        });
      return saving;
    }

    function changed(event) {
      var fieldset = event.target.closest ? event.target.closest("[data-item]") : null;
      if (fieldset && refused[fieldset.getAttribute("data-item")]) {
        delete refused[fieldset.getAttribute("data-item")];
        showProblem(fieldset, "");
      }
      if (pending) window.clearTimeout(pending);
      /* Typing waits for a pause; a click or a choice saves at once. */
      pending = window.setTimeout(save, event.type === "input" ? 800 : 400);
    }

    form.addEventListener("change", changed);
    form.addEventListener("input", function (event) {
      if (event.target.type === "text") changed(event);
    });

    tick();
    var timer = window.setInterval(tick, 1000);
  }

  /* The certificate's print button (the print stylesheet lays it out on one A4 page). */
  function initPrintButtons() {
    document.querySelectorAll("[data-print]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        window.print();
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    initPrintButtons();
    initCopyButtons();
    initStepOpened(initSectionTracking);
    initReviewKeys();
    initExam();
  });

  /* ---- Reading pages (issue 18) ---------------------------------------------------------- */

  /* Step outline: tick a section once the progress API recorded it, and update the count. */
  function markSectionRead(kind) {
    var item = document.querySelector("[data-toc-kind='" + kind + "']");
    if (!item || item.classList.contains("step-toc__item--read")) return;
    item.classList.add("step-toc__item--read");
    var mark = item.querySelector("[data-read-mark]");
    if (mark) mark.hidden = false;
    var count = document.querySelector("[data-sections-read]");
    if (!count) return;
    var read = parseInt(count.getAttribute("data-read"), 10) + 1;
    var total = count.getAttribute("data-total");
    count.setAttribute("data-read", String(read));
    count.textContent =
      document.documentElement.lang === "en"
        ? read + " of " + total + " sections read"
        : read + " von " + total + " Abschnitten gelesen";
  }

  /* Notes: warn before leaving the page with text that was not saved (both notes are saved by
     one form, so submitting it is not leaving them). */
  function initNotesGuard() {
    var form = document.querySelector("[data-notes-form]");
    var notes = document.querySelectorAll("textarea[data-note]");
    if (!form || !notes.length) return;
    var saving = false;
    form.addEventListener("submit", function () {
      saving = true;
    });
    function unsaved() {
      for (var i = 0; i < notes.length; i++) {
        if (notes[i].value !== notes[i].defaultValue) return true;
      }
      return false;
    }
    window.addEventListener("beforeunload", function (event) {
      if (saving || !unsaved()) return;
      event.preventDefault();
      event.returnValue = "";
    });
  }

  /* Exam: marks for later are kept by the browser per attempt (sessionStorage) and shown in
     the question overview, which also shows what is answered. Without JS the marks still
     travel to the confirmation page with the form. */
  function initExamOverview() {
    var form = document.querySelector("[data-exam-attempt]");
    if (!form) return;
    var key = "lernpfad-marks-" + form.getAttribute("data-attempt-id");
    var marks = {};
    try {
      marks = JSON.parse(window.sessionStorage.getItem(key) || "{}") || {};
    } catch (e) {
      marks = {};
    }
    function showMark(id, on) {
      var link = document.querySelector("[data-overview-item='" + id + "']");
      if (!link) return;
      var flag = link.querySelector("[data-overview-flag]");
      if (flag) flag.hidden = !on;
      link.classList.toggle("exam-overview__link--marked", on);
    }
    form.querySelectorAll("[data-mark-item]").forEach(function (box) {
      var id = box.getAttribute("data-mark-item");
      if (marks[id]) box.checked = true;
      showMark(id, box.checked);
      box.addEventListener("change", function () {
        if (box.checked) marks[id] = true;
        else delete marks[id];
        try {
          window.sessionStorage.setItem(key, JSON.stringify(marks));
        } catch (e) {
          /* storage full or off: the mark stays on this page only */
        }
        showMark(id, box.checked);
      });
    });
    function answered(fieldset) {
      var kind = fieldset.getAttribute("data-kind");
      if (kind === "matching") {
        var selects = fieldset.querySelectorAll("select");
        for (var i = 0; i < selects.length; i++) if (!selects[i].value) return false;
        return selects.length > 0;
      }
      var text = fieldset.querySelector("input[type=text]");
      if (text) return text.value.trim() !== "";
      return !!fieldset.querySelector("input[name^='item-']:checked");
    }
    form.addEventListener("input", function (event) {
      var fieldset = event.target.closest("[data-item]");
      if (!fieldset) return;
      var link = document.querySelector(
        "[data-overview-item='" + fieldset.getAttribute("data-item") + "']"
      );
      if (link) link.classList.toggle("exam-overview__link--answered", answered(fieldset));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    initNotesGuard();
    initExamOverview();
  });
})();
