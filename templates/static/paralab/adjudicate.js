/* The adjudication screen: add the word diff to each server-rendered pair, record staff
 * decisions with POST annotation/items/{item}/adjudicate/ {"valid", "note"} (session auth,
 * CSRF token from its cookie), and the keyboard: j/k move between cards, v/i decide the current
 * card (the first undecided one until staff move) and go on to the next undecided card, n writes
 * a note. Values are written with textContent only. */
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

  /* The server counted the split items still waiting over every page; one fewer per decision. */
  function countDecided(card) {
    if (card.dataset.decided === "1" || card.dataset.split !== "1") return;
    var field = document.querySelector('#adjudication-summary [data-field="pending"]');
    if (!field) return;
    var pending = parseInt(field.textContent, 10);
    if (pending > 0) field.textContent = String(pending - 1);
  }

  function decide(form, valid, advance) {
    var card = form.closest(".adjudication-card");
    var status = card.querySelector('[data-field="decision"]');
    var buttons = form.querySelectorAll("button");
    if (form.dataset.busy === "1") return;
    form.dataset.busy = "1";
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
      countDecided(card);
      card.dataset.decided = "1";
      if (advance) moveToUndecidedAfter(card);
    }).catch(function (error) {
      status.textContent = error.message;
    }).then(function () {
      form.dataset.busy = "0";
      Array.prototype.forEach.call(buttons, function (b) { b.disabled = false; });
    });
  }

  /* --- the current card and the keyboard ------------------------------------------------- */
  var cards = Array.prototype.slice.call(root.querySelectorAll(".adjudication-card"));
  var current = null;

  function setCurrent(card, focus) {
    if (!card) return;
    if (current && current !== card) {
      current.classList.remove("is-current");
      current.removeAttribute("aria-current");
    }
    current = card;
    card.classList.add("is-current");
    card.setAttribute("aria-current", "true");
    if (focus) card.focus();
  }

  function firstUndecided(from) {
    for (var i = from; i < cards.length; i++) if (cards[i].dataset.decided !== "1") return cards[i];
    return null;
  }

  function moveToUndecidedAfter(card) {
    if (card !== current) return;  // staff moved on while the answer was on its way
    var next = firstUndecided(cards.indexOf(card) + 1) || firstUndecided(0);
    if (next) setCurrent(next, true);
  }

  function move(step) {
    var index = current ? cards.indexOf(current) + step : (step > 0 ? 0 : cards.length - 1);
    setCurrent(cards[Math.max(0, Math.min(cards.length - 1, index))], true);
  }

  function typing(target) {
    var tag = target && target.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (target && target.isContentEditable);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || !cards.length) return;
    if (typing(event.target)) {
      if (event.key === "Escape" && event.target.name === "note") {
        event.preventDefault();
        event.target.blur();
        setCurrent(event.target.closest(".adjudication-card"), true);
      }
      return;
    }
    var key = event.key;
    if (key === "j" || key === "k") {
      event.preventDefault();
      move(key === "j" ? 1 : -1);
    } else if (key === "v" || key === "i") {
      if (event.repeat) return;
      event.preventDefault();
      if (!current) setCurrent(firstUndecided(0) || cards[0], true);
      decide(current.querySelector(".decide-form"), key === "v", true);
    } else if (key === "n") {
      event.preventDefault();
      if (!current) setCurrent(firstUndecided(0) || cards[0], false);
      current.querySelector('input[name="note"]').focus();
    }
  });

  cards.forEach(function (card) {
    addDiff(card);
    // Clicking or tabbing into a card makes it the one the shortcuts act on.
    card.addEventListener("focusin", function () { setCurrent(card, false); });
    card.addEventListener("click", function () { setCurrent(card, false); });
  });
  Array.prototype.forEach.call(root.querySelectorAll(".decide-form"), function (form) {
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    Array.prototype.forEach.call(form.querySelectorAll("button[data-valid]"), function (button) {
      button.addEventListener("click", function () { decide(form, button.dataset.valid === "true", false); });
    });
  });
  // Shown from the start: v and i act on the first undecided card until staff move.
  var start = firstUndecided(0);
  if (start) {
    start.classList.add("is-current");
    start.setAttribute("aria-current", "true");
    current = start;
  }
})();
