/* The dashboard's "Retrain ParaQD" button: POST the retrain endpoint (202 {"job"}), then poll
 * GET /api/v1/jobs/{id}/ every 1.5 s and show the job's status and progress until it ends.
 * Session auth with the CSRF token from its cookie; text only, never HTML. */
(function () {
  "use strict";

  var box = document.getElementById("retrain");
  if (!box) return;
  var button = document.getElementById("retrain-button");
  var bar = document.getElementById("retrain-progress");
  var statusEl = document.getElementById("retrain-status");
  var note = document.getElementById("retrain-note");
  var POLL_MS = 1500;
  var STATUSES = ["queued", "running", "succeeded", "failed"];

  function request(method, url) {
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "Content-Type": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
      body: method === "POST" ? "{}" : undefined,
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (data) {
        if (!response.ok) {
          var error = new Error(data.detail || ("The server answered " + response.status + "."));
          error.status = response.status;
          error.data = data;
          throw error;
        }
        return data;
      });
    });
  }

  function show(job) {
    var status = STATUSES.indexOf(job.status) >= 0 ? job.status : "queued";
    var pct = Math.max(0, Math.min(100, Math.round((Number(job.progress) || 0) * 100)));
    bar.hidden = false;
    statusEl.hidden = false;
    bar.setAttribute("aria-valuenow", String(pct));
    var inner = bar.querySelector("[data-field=bar]");
    inner.style.width = pct + "%";
    STATUSES.forEach(function (s) { inner.classList.remove("status-" + s); statusEl.classList.remove("status-" + s); });
    inner.classList.add("status-" + status);
    statusEl.classList.add("status-" + status);
    statusEl.textContent = status + (status === "running" ? " " + pct + "%" : "");
    box.dataset.status = status;
    if (status === "failed") note.textContent = "Retraining failed; the active model is unchanged. " + (job.error || "");
    else if (status === "succeeded") note.textContent = "Retraining finished. Reload to see the new version and the gate's decision.";
    else {
      note.textContent = "";
      var link = document.createElement("a");
      link.href = box.dataset.jobsPage || "/jobs/";
      link.textContent = "Job " + job.id;
      note.appendChild(link);
      var lines = typeof job.log === "string" ? job.log.trim().split("\n") : [];
      var last = lines.length ? lines[lines.length - 1].replace(/^\[[^\]]*\]\s*/, "") : "";
      note.appendChild(document.createTextNode(" " + status + (last ? ": " + last : "…")));
    }
  }

  function poll(jobId) {
    request("GET", box.dataset.jobsApi + jobId + "/").then(function (job) {
      job.id = jobId;
      show(job);
      if (job.status === "queued" || job.status === "running") window.setTimeout(function () { poll(jobId); }, POLL_MS);
      else button.disabled = false;
    }).catch(function (error) {
      note.textContent = "Could not read the job: " + error.message;
      window.setTimeout(function () { poll(jobId); }, POLL_MS * 2);
    });
  }

  button.addEventListener("click", function () {
    button.disabled = true;
    note.textContent = "Starting…";
    request("POST", box.dataset.url).then(function (data) {
      box.dataset.job = String(data.job);
      show({ id: data.job, status: "queued", progress: 0 });
      poll(data.job);
    }).catch(function (error) {
      if (error.status === 409 && error.data && error.data.job) {
        // A retrain is already queued or running: follow that one.
        box.dataset.job = String(error.data.job);
        poll(error.data.job);
        return;
      }
      button.disabled = false;
      note.textContent = error.message;
    });
  });
})();
