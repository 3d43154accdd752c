/* The adjudication screen: add the word diff to each server-rendered pair, and record staff
 * decisions with POST annotation/items/{item}/adjudicate/ {"valid", "note"} (session auth,
 * CSRF token from its cookie). Values are written with textContent only. */
(function () {
  "use strict";

  var root = document.getElementById("adjudication");
  if (!root) return;
  var API = root.dataset.api || "/api/v1/";

  /* The text of a server-highlighted element and its <mark> spans, as the API would send them. */
  function readHighlighted(container) {
    var text = "", spans = [];
    Array.prototype.forEach.call(container.childNodes, function (node) {
      var piece = node.textContent || "";
      if (node.nodeType === 1 && node.tagName === "MARK") {
        var kind = (node.className.match(/hl-(\w+)/) || [])[1] || "number";
        spans.push({ start: text.length, end: text.length + piece.length, kind: kind, label: "" });
      }
      text += piece;
    });
    return { text: text, spans: spans };
  }

  function addDiff(card) {
    var left = card.querySelector('[data-field="problem"]');
    var right = card.querySelector('[data-field="paraphrase"]');
    if (!left || !right || !window.ParalabText) return;
    var titles = function (el) { return Array.prototype.map.call(el.querySelectorAll("mark"), function (m) { return m.title; }); };
    var leftTitles = titles(left), rightTitles = titles(right);
    var a = readHighlighted(left), b = readHighlighted(right);
    a.spans.forEach(function (s, i) { s.label = (leftTitles[i] || "").split(": ")[1] || ""; });
    b.spans.forEach(function (s, i) { s.label = (rightTitles[i] || "").split(": ")[1] || ""; });
    window.ParalabText.renderPair(left, right, a, b);
  }

  function updateSummary() {
    var pending = root.querySelectorAll('.adjudication-card[data-decided="0"]').length;
    var field = document.querySelector('#adjudication-summary [data-field="pending"]');
    if (field) field.textContent = String(pending);
  }

  function decide(form, valid) {
    var card = form.closest(".adjudication-card");
    var status = card.querySelector('[data-field="decision"]');
    var buttons = form.querySelectorAll("button");
    Array.prototype.forEach.call(buttons, function (b) { b.disabled = true; });
    fetch(API + "annotation/items/" + form.dataset.item + "/adjudicate/", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Accept": "application/json", "Content-Type": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
      body: JSON.stringify({ valid: valid, note: form.elements.note.value.trim() }),
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) throw new Error(data.detail || ("The server answered " + response.status + "."));
        return data;
      });
    }).then(function (data) {
      var gold = data.gold || { valid: valid };
      status.textContent = "";
      status.appendChild(document.createTextNode("Decided: "));
      var verdict = document.createElement("span");
      verdict.className = "verdict " + (gold.valid ? "verdict-valid" : "verdict-invalid");
      verdict.textContent = gold.valid ? "valid" : "invalid";
      status.appendChild(verdict);
      status.appendChild(document.createTextNode((gold.decided_by ? " by " + gold.decided_by : "") + ". Deciding again replaces it."));
      card.dataset.decided = "1";
      updateSummary();
    }).catch(function (error) {
      status.textContent = error.message;
    }).then(function () {
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
    });
  }

  Array.prototype.forEach.call(root.querySelectorAll(".adjudication-card"), addDiff);
  Array.prototype.forEach.call(root.querySelectorAll(".decide-form"), function (form) {
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    Array.prototype.forEach.call(form.querySelectorAll("button[data-valid]"), function (button) {
      button.addEventListener("click", function () { decide(form, button.dataset.valid === "true"); });
    });
  });
})();
