/* The /jobs/ page: poll GET /api/v1/jobs/{id}/ every 2 s for queued and running jobs and
 * update their row (status, progress bar, time left, error, log); Cancel posts
 * POST /api/v1/jobs/{id}/cancel/. Session auth: the browser sends the
 * session cookie; the CSRF token from its cookie goes along as X-CSRFToken. Values are written
 * with textContent only, never as HTML. */
(function () {
  "use strict";

  var POLL_MS = 2000;
  var ACTIVE = { queued: true, running: true };
  var STATUSES = ["queued", "running", "succeeded", "failed", "cancelled"];

  function field(row, name) {
    return row.querySelector('[data-field="' + name + '"]');
  }

  function setStatusClass(el, status) {
    if (!el) return;
    STATUSES.forEach(function (s) { el.classList.remove("status-" + s); });
    el.classList.add("status-" + status);
  }

  function render(row, job) {
    var status = STATUSES.indexOf(job.status) >= 0 ? job.status : "queued";
    var pct = Math.max(0, Math.min(100, Math.round((Number(job.progress) || 0) * 100)));
    row.dataset.status = status;

    var badge = field(row, "status");
    if (badge) { badge.textContent = status; setStatusClass(badge, status); }

    var bar = field(row, "bar");
    if (bar) { bar.style.width = pct + "%"; setStatusClass(bar, status); }
    var progressbar = field(row, "progressbar");
    if (progressbar) progressbar.setAttribute("aria-valuenow", String(pct));
    var label = field(row, "progress");
    if (label) label.textContent = pct + "%";

    var eta = field(row, "eta");
    if (eta) eta.textContent = formatEta(job);
    var cancel = field(row, "cancel");
    if (cancel) {
      cancel.hidden = !ACTIVE[status] || job.cancel_requested;
      if (job.cancel_requested && status === "running" && eta) eta.textContent = "stopping…";
    }

    var error = field(row, "error");
    if (error) { error.textContent = job.error || ""; error.hidden = !job.error; }
    var log = field(row, "log");
    var logBox = field(row, "log-box");
    if (log && typeof job.log === "string" && log.textContent !== job.log) log.textContent = job.log;
    if (logBox) logBox.hidden = !job.log;
    var nothing = field(row, "nothing");
    if (nothing) nothing.hidden = Boolean(job.error || job.log);

    var finished = field(row, "finished");
    if (finished && job.finished_at) {
      finished.textContent = "finished " + new Date(job.finished_at).toLocaleTimeString();
    }
  }

  function formatEta(job) {
    if (job.status !== "running" || job.eta_seconds === null || job.eta_seconds === undefined) return "";
    var s = Math.round(job.eta_seconds);
    if (s < 90) return "about " + s + " s left";
    if (s < 5400) return "about " + Math.round(s / 60) + " min left";
    return "about " + (s / 3600).toFixed(1) + " h left";
  }

  function cancelJob(row, button) {
    button.disabled = true;
    fetch(row.dataset.cancelUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
    }).then(function (response) {
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (job) {
      render(row, job);
      start();
    }).catch(function () {
      button.disabled = false;
      say("The cancel request did not go through; try again.");
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll('tr[data-cancel-url] [data-field="cancel"]'), function (button) {
    button.addEventListener("click", function () { cancelJob(button.closest("tr"), button); });
  });

  function activeRows() {
    return Array.prototype.filter.call(
      document.querySelectorAll("tr[data-job-url]"),
      function (row) { return ACTIVE[row.dataset.status] && !row.dataset.stopped; }
    );
  }

  var inFlight = false;
  var timer = null;
  var note = document.getElementById("jobs-live-note");

  function say(text) { if (note) note.textContent = text; }

  function fetchJob(row) {
    return fetch(row.dataset.jobUrl, {
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
    }).then(function (response) {
      if (response.status === 401 || response.status === 403) {
        // The session ended or lost staff rights: stop polling instead of hammering.
        row.dataset.stopped = "1";
        say("Live updates stopped: log in again to see progress.");
        return null;
      }
      if (response.status === 404) { row.dataset.stopped = "1"; return null; }
      if (!response.ok) throw new Error("HTTP " + response.status);
      return response.json();
    }).then(function (job) {
      if (job) render(row, job);
    });
  }

  function tick() {
    if (inFlight || document.hidden) return;
    var rows = activeRows();
    if (rows.length === 0) { stop(); return; }
    inFlight = true;
    Promise.all(rows.map(function (row) {
      return fetchJob(row).catch(function () { /* transient: try again next tick */ });
    })).then(function () {
      inFlight = false;
      if (activeRows().length === 0) stop();
    });
  }

  function start() {
    if (timer === null && activeRows().length > 0) timer = window.setInterval(tick, POLL_MS);
  }

  function stop() {
    if (timer !== null) { window.clearInterval(timer); timer = null; }
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { start(); tick(); }
  });
  start();
})();
