// Platform storage after "LTI Client Side postMessages" and "LTI postMessage Storage":
// answers lti.capabilities, lti.put_data and lti.get_data from the tool's frame, keyed by the
// sender's origin, and reports every message to the platform (/storage-log) for the tests.
// data-role: "page" (the course page, parent of the tool frame) or "frame" (the named
// storage frame); data-mode: "parent", "frame" or "off".
(function () {
  "use strict";
  var script = document.currentScript;
  var role = script.dataset.role;
  var mode = script.dataset.mode;
  var frameName = script.dataset.frame;
  if (mode === "off") { return; }
  var store = {};
  var subjects = ["lti.capabilities", "lti.put_data", "lti.get_data"];

  function report(entry) {
    fetch("/storage-log", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(entry),
    });
  }

  function supported(subject) {
    var entry = { subject: subject };
    if (mode === "frame") { entry.frame = frameName; }
    return entry;
  }

  function answer(data, origin) {
    // The 2022 drafts named the messages org.imsglobal.lti.*; both are understood.
    var subject = data.subject.replace(/^org\.imsglobal\./, "");
    var reply = { subject: data.subject + ".response", message_id: data.message_id };
    if (subject === "lti.capabilities") {
      reply.supported_messages = [supported("lti.put_data"), supported("lti.get_data")];
    } else if (mode === "frame" && role === "page") {
      reply.error = { code: "bad_request", message: "send " + subject + " to the frame " + frameName };
    } else if (typeof data.key !== "string" || data.key === "") {
      reply.error = { code: "bad_request", message: "key is missing" };
    } else if (subject === "lti.put_data") {
      store[origin] = store[origin] || {};
      store[origin][data.key] = data.value;
      reply.key = data.key;
      reply.value = data.value;
    } else {
      var values = store[origin] || {};
      reply.key = data.key;
      if (Object.prototype.hasOwnProperty.call(values, data.key)) {
        reply.value = values[data.key];
      } else {
        reply.error = { code: "bad_request", message: "no value stored for " + data.key };
      }
    }
    return reply;
  }

  window.addEventListener("message", function (event) {
    var data = event.data;
    if (!data || typeof data !== "object" || typeof data.subject !== "string") { return; }
    var subject = data.subject.replace(/^org\.imsglobal\./, "");
    if (subjects.indexOf(subject) < 0) { return; }
    // lti.capabilities goes to the parent page; the storage frame only stores.
    if (subject === "lti.capabilities" && role !== "page") { return; }
    var reply = answer(data, event.origin);
    report({
      where: role, subject: data.subject, origin: event.origin, message_id: data.message_id,
      key: data.key, value: data.value, reply: reply,
    });
    event.source.postMessage(reply, event.origin);
  });
})();
