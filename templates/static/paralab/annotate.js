/* The labelling screen (/annotate/<dataset>/): fetch the next pair from the REST API, show it
 * with highlights and the word diff, and post the label. Session auth; the CSRF token from its
 * cookie goes along as X-CSRFToken. Keyboard: see the ? help dialog in the template.
 *
 * API (under data-api): GET annotation/next/?dataset=ID -> 200 ITEM | 204,
 * GET annotation/items/ID/ -> ITEM, POST annotation/items/ID/label/ -> {label, progress},
 * POST annotation/items/ID/skip/ -> {progress}, POST annotation/undo/ {dataset} -> 200 ITEM | 204. */
(function () {
  "use strict";

  var root = document.getElementById("annotator");
  if (!root || !window.ParalabText) return;

  var API = root.dataset.api || "/api/v1/";
  var DATASET = Number(root.dataset.dataset);
  var RATINGS = ["solvability", "diversity", "fluency"];

  var el = {
    itemView: document.getElementById("item-view"),
    doneView: document.getElementById("done-view"),
    loading: document.getElementById("loading"),
    status: document.getElementById("status"),
    problem: document.getElementById("problem-text"),
    paraphrase: document.getElementById("paraphrase-text"),
    editBanner: document.getElementById("edit-banner"),
    comment: document.getElementById("comment"),
    progress: document.getElementById("queue-progress"),
    progressText: document.getElementById("progress-text"),
    diffToggle: document.getElementById("diff-toggle"),
    help: document.getElementById("help-dialog"),
    guidelines: document.getElementById("guidelines-dialog"),
    guidelinesButton: document.getElementById("guidelines-button"),
  };

  var state = {
    item: null,       // the ITEM on screen
    busy: false,      // a request is in flight: keys and buttons wait
    selectedRow: 0,   // index into RATINGS for the digit keys
    shownAt: 0,       // when the item appeared (time spent goes with the label)
    undone: {},       // item id -> the label we last sent, to prefill after an undo
  };

  function newKey() {
    if (window.crypto && window.crypto.randomUUID) return window.crypto.randomUUID();
    return Date.now().toString(36) + "-" + Math.random().toString(36).slice(2, 12);
  }

  // A label or an undo carries an Idempotency-Key; when the network drops before the answer
  // arrives (fetch rejects, or the server answers 502/503/504) it is sent again with the same key,
  // and the server applies it once whatever happened to the first try.
  var RETRY_DELAYS_MS = [500, 1500, 4000];

  function api(method, path, body, key) {
    var options = {
      method: method,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
    };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    if (key) options.headers["Idempotency-Key"] = key;
    function attempt(n) {
      return fetch(API + path, options).then(function (response) {
        if (key && n < RETRY_DELAYS_MS.length && [502, 503, 504].indexOf(response.status) >= 0) {
          return wait(RETRY_DELAYS_MS[n]).then(function () { return attempt(n + 1); });
        }
        return response;
      }, function (error) {
        if (!key || n >= RETRY_DELAYS_MS.length) throw new Error("The network is down: " + error.message);
        return wait(RETRY_DELAYS_MS[n]).then(function () { return attempt(n + 1); });
      });
    }
    return attempt(0).then(function (response) {
      if (response.status === 204) return { status: 204, data: null };
      return response.json().catch(function () { return null; }).then(function (data) {
        if (!response.ok) {
          var error = new Error(errorText(response.status, data));
          error.status = response.status;
          throw error;
        }
        return { status: response.status, data: data };
      });
    });
  }

  function wait(ms) {
    return new Promise(function (resolve) { window.setTimeout(resolve, ms); });
  }

  function errorText(status, data) {
    if (status === 401 || (status === 403 && data && /credentials|authenticat/i.test(data.detail || ""))) {
      return "Your session ended: log in again.";
    }
    if (data && typeof data.detail === "string") return data.detail;
    if (data && Array.isArray(data.detail)) return data.detail.join(" ");
    if (data && typeof data === "object") {
      return Object.keys(data).map(function (key) { return key + ": " + [].concat(data[key]).join(" "); }).join("; ");
    }
    return "The server answered " + status + ".";
  }

  var statusTimer = null;
  function say(text, tone) {
    el.status.textContent = text;
    el.status.className = "status-line" + (tone ? " status-" + tone : "");
    if (statusTimer) window.clearTimeout(statusTimer);
    if (text && tone !== "error") {
      statusTimer = window.setTimeout(function () { el.status.textContent = ""; }, 6000);
    }
  }

  function setProgress(progress) {
    if (!progress) return;
    var done = Number(progress.done) || 0, total = Number(progress.total) || 0;
    var pct = total ? Math.round(100 * done / total) : 0;
    el.progress.setAttribute("aria-valuemax", String(total));
    el.progress.setAttribute("aria-valuenow", String(done));
    el.progress.setAttribute("aria-valuetext", done + " of " + total + " done");
    el.progress.querySelector("[data-field=bar]").style.width = pct + "%";
    el.progressText.textContent = done + " / " + total + " done";
    root.dataset.done = String(done);
    root.dataset.total = String(total);
  }

  /* --- ratings ----------------------------------------------------------------------------- */

  function ratingRows() { return Array.prototype.slice.call(root.querySelectorAll(".rating-row")); }

  function selectRow(index, focus) {
    var rows = ratingRows();
    state.selectedRow = (index + rows.length) % rows.length;
    rows.forEach(function (row, i) { row.classList.toggle("is-selected", i === state.selectedRow); });
    if (focus) {
      var checked = rows[state.selectedRow].querySelector("input:checked");
      if (checked) checked.focus();
    }
  }

  function setRating(name, value) {
    var id = name + "-" + (value === null || value === undefined || value === "" ? "none" : value);
    var input = document.getElementById(id);
    if (input) input.checked = true;
  }

  function getRating(name) {
    var checked = root.querySelector('input[name="' + name + '"]:checked');
    return checked && checked.value !== "" ? Number(checked.value) : null;
  }

  function resetForm(label) {
    RATINGS.forEach(function (name) { setRating(name, label ? label[name] : null); });
    el.comment.value = label && label.comment ? label.comment : "";
    selectRow(0, false);
  }

  /* --- items ------------------------------------------------------------------------------- */

  function show(item, options) {
    options = options || {};
    state.item = item;
    state.shownAt = Date.now();
    el.loading.hidden = true;
    el.doneView.hidden = true;
    el.itemView.hidden = false;
    root.dataset.item = String(item.item);
    window.ParalabText.renderPair(el.problem, el.paraphrase, item.problem, item.paraphrase);
    window.ParalabText.renderChecks(document.getElementById("checks"), item.checks);
    renderSolution(item.problem);
    renderJudge(item.judge);
    var label = item.label || options.prefill || null;
    resetForm(label);
    var editing = Boolean(item.label);
    el.editBanner.hidden = !editing;
    // A labelled pair cannot be skipped (undo or change the label instead).
    document.getElementById("skip-button").disabled = editing;
    if (item.progress) setProgress(item.progress);
    applyDiffToggle();
  }

  // The problem's imported answer and equation, in a <details> that stays as the annotator left it
  // (collapsed at first); rows without a value are hidden, the whole box when both are empty.
  function renderSolution(problem) {
    var box = document.getElementById("problem-solution");
    if (!box) return;
    var any = false;
    ["answer", "equation"].forEach(function (field) {
      var value = problem && typeof problem[field] === "string" ? problem[field].trim() : "";
      document.getElementById("problem-" + field).textContent = value;
      box.querySelectorAll('[data-row="' + field + '"]').forEach(function (node) { node.hidden = !value; });
      any = any || Boolean(value);
    });
    box.hidden = !any;
  }

  // Staff only (the API sends "judge" to staff): the numeracy-aware judge's decision and checks.
  function renderJudge(judge) {
    var panel = document.getElementById("judge-panel");
    if (!panel) return;
    panel.textContent = "";
    if (!judge) { panel.hidden = true; return; }
    var head = document.createElement("p");
    var verdict = judge.valid === null ? "no decision" : (judge.valid ? "valid" : "invalid");
    head.textContent = "Judge v" + judge.version + (judge.deciding ? " (decides)" : "") + ": " + verdict +
      (judge.probability === null ? "" : ", probability " + judge.probability.toFixed(3) +
       " vs threshold " + judge.threshold.toFixed(3));
    panel.appendChild(head);
    var list = document.createElement("ul");
    (judge.checks || []).forEach(function (check) {
      var li = document.createElement("li");
      li.className = check.passed ? "check-ok" : "check-failed";
      li.dataset.check = check.check;
      li.textContent = (check.passed ? "\u2713 " : "\u2717 ") + check.check + ": " + check.detail;
      list.appendChild(li);
    });
    panel.appendChild(list);
    panel.hidden = false;
  }

  function showDone() {
    state.item = null;
    delete root.dataset.item;
    el.loading.hidden = true;
    el.itemView.hidden = true;
    el.doneView.hidden = false;
  }

  function loadNext() {
    return api("GET", "annotation/next/?dataset=" + DATASET).then(function (result) {
      if (result.status === 204 || !result.data) {
        showDone();
        return;
      }
      show(result.data);
    });
  }

  function run(promise) {
    state.busy = true;
    root.setAttribute("aria-busy", "true");
    return promise.catch(function (error) {
      if (error.status === 403 && state.item && !/session|log in/i.test(error.message)) {
        // The pair is no longer ours (the lease ran out and another annotator took the slot).
        say("That pair went to someone else while it was open; here is the next one.", "info");
        return loadNext().catch(function (again) { say(again.message, "error"); });
      }
      say(error.message || "Something went wrong.", "error");
    }).then(function () {
      state.busy = false;
      root.removeAttribute("aria-busy");
    });
  }

  function submit(valid) {
    if (state.busy || !state.item) return;
    var item = state.item;
    var body = { valid: valid, comment: el.comment.value.trim() };
    RATINGS.forEach(function (name) { body[name] = getRating(name); });
    body.time_spent_ms = Math.max(0, Date.now() - state.shownAt);
    var wasEdit = Boolean(item.label);
    run(api("POST", "annotation/items/" + item.item + "/label/", body, newKey()).then(function (result) {
      state.undone[item.item] = body;
      if (result.data && result.data.progress) setProgress(result.data.progress);
      say((wasEdit ? "Label updated: " : "Saved: ") + (valid ? "valid" : "invalid") + ". Press u to undo.", "ok");
      if (root.dataset.editItem) {
        // Opened from "my labels": editing one pair, then on with the queue.
        delete root.dataset.editItem;
        if (window.history && window.history.replaceState) window.history.replaceState(null, "", window.location.pathname);
      }
      return loadNext();
    }));
  }

  function skip() {
    if (state.busy || !state.item || state.item.label) return;
    var item = state.item;
    run(api("POST", "annotation/items/" + item.item + "/skip/", {}).then(function (result) {
      if (result.data && result.data.progress) setProgress(result.data.progress);
      say("Skipped: the pair goes to another annotator.", "ok");
      return loadNext();
    }));
  }

  function undo() {
    if (state.busy) return;
    run(api("POST", "annotation/undo/", { dataset: DATASET }, newKey()).then(function (result) {
      if (result.status === 204 || !result.data) {
        say("Nothing to undo.", "info");
        return;
      }
      var item = result.data;
      show(item, { prefill: state.undone[item.item] || null });
      say("Undone: your last label was removed. Label this pair again.", "ok");
    }));
  }

  function openItem(itemId) {
    return api("GET", "annotation/items/" + itemId + "/").then(function (result) {
      show(result.data);
    }, function (error) {
      say(error.status === 404 ? "That pair is not one of yours." : error.message, "error");
      return loadNext();
    });
  }

  /* --- view toggles and dialogs ------------------------------------------------------------ */

  function applyDiffToggle() {
    root.classList.toggle("diff-off", !el.diffToggle.checked);
  }

  function openDialog(dialog) {
    if (!dialog || dialog.open) return;
    if (el.help.open) el.help.close();
    if (el.guidelines.open) el.guidelines.close();
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }

  /* --- keyboard ---------------------------------------------------------------------------- */

  function isTyping(target) {
    if (!target) return false;
    if (target.isContentEditable || target.tagName === "TEXTAREA" || target.tagName === "SELECT") return true;
    return target.tagName === "INPUT" && !/^(radio|checkbox|button|submit)$/i.test(target.type);
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (isTyping(event.target)) {
      if (event.key === "Escape") { event.target.blur(); event.preventDefault(); }
      return;
    }
    if (el.help.open || el.guidelines.open) return; // Esc closes a dialog natively
    var key = event.key;
    var itemOn = Boolean(state.item);
    var handled = true;
    if (key === "?") openDialog(el.help);
    else if (key === "g" || key === "G") { if (!el.guidelinesButton.disabled) openDialog(el.guidelines); }
    else if (key === "u" || key === "U") undo();
    else if (!itemOn) handled = false;
    else if (key === "v" || key === "V") submit(true);
    else if (key === "i" || key === "I") submit(false);
    else if (key === "s" || key === "S") skip();
    else if (key === "c" || key === "C") el.comment.focus();
    else if (key === "d" || key === "D") { el.diffToggle.checked = !el.diffToggle.checked; applyDiffToggle(); }
    else if (/^[0-5]$/.test(key)) {
      var row = ratingRows()[state.selectedRow];
      setRating(row.dataset.rating, key);
      selectRow(state.selectedRow + 1, row.contains(document.activeElement));
    }
    else if (key === "Backspace" || key === "Delete" || key === "-") setRating(ratingRows()[state.selectedRow].dataset.rating, null);
    else if (key === "ArrowDown" || key === "j" || key === "J") selectRow(state.selectedRow + 1, isRadio(event.target));
    else if (key === "ArrowUp" || key === "k" || key === "K") selectRow(state.selectedRow - 1, isRadio(event.target));
    else handled = false;
    if (handled) event.preventDefault();
  });

  function isRadio(target) { return target && target.tagName === "INPUT" && target.type === "radio"; }

  /* Tabbing into a rating row (or clicking it) makes it the row the digits rate. */
  ratingRows().forEach(function (row, index) {
    row.addEventListener("focusin", function () { selectRow(index, false); });
    row.addEventListener("click", function () { selectRow(index, false); });
  });

  document.getElementById("valid-button").addEventListener("click", function () { submit(true); });
  document.getElementById("invalid-button").addEventListener("click", function () { submit(false); });
  document.getElementById("skip-button").addEventListener("click", skip);
  document.getElementById("undo-button").addEventListener("click", undo);
  document.getElementById("undo-button-done").addEventListener("click", undo);
  document.getElementById("help-button").addEventListener("click", function () { openDialog(el.help); });
  el.guidelinesButton.addEventListener("click", function () { openDialog(el.guidelines); });
  el.diffToggle.addEventListener("change", applyDiffToggle);
  document.getElementById("label-form").addEventListener("submit", function (event) { event.preventDefault(); });

  setProgress({ done: root.dataset.done, total: root.dataset.total });
  var editItem = root.dataset.editItem;
  run(editItem ? openItem(editItem) : loadNext());
})();
