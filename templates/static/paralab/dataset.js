/* The dataset page's Import form (staff): the file goes to the REST import endpoint,
 * POST datasets/ID/import/ (multipart file + format + split + kind), session auth with the CSRF
 * token as X-CSRFToken. A small file is imported in the request: 201 {created, duplicates}, then
 * the page reloads to show the new counts, carrying the message along in sessionStorage. A big
 * one becomes a job: 202 {job}, followed with GET jobs/ID/ until it ends. A refused file: the
 * server's message (it names the line and field) stays on screen. Server text goes in with
 * textContent only. */
(function () {
  "use strict";

  var form = document.getElementById("import-form");
  if (!form) return;

  var FLASH = "paralab-import-flash";
  var POLL_MS = 1500;
  var toggle = document.getElementById("import-toggle");
  var fileInput = document.getElementById("import-file");
  var format = document.getElementById("import-format");
  var split = document.getElementById("import-split");
  var submitButton = document.getElementById("import-submit");
  var status = document.getElementById("import-status");
  var progress = document.getElementById("import-progress");

  function say(parts, tone) {
    status.textContent = "";
    status.className = "status-line" + (tone ? " status-" + tone : "");
    [].concat(parts).forEach(function (part) {
      if (part && part.href) {
        var link = document.createElement("a");
        link.href = part.href;
        link.textContent = part.text;
        status.appendChild(link);
      } else if (part) {
        status.appendChild(document.createTextNode(part));
      }
    });
  }

  function setProgress(fraction) {
    var pct = Math.max(0, Math.min(100, Math.round(100 * (Number(fraction) || 0))));
    progress.hidden = false;
    progress.setAttribute("aria-valuenow", String(pct));
    progress.querySelector("[data-field=bar]").style.width = pct + "%";
  }

  function open(show) {
    form.hidden = !show;
    toggle.setAttribute("aria-expanded", show ? "true" : "false");
    if (show) fileInput.focus();
  }

  function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

  function summary(result, kind) {
    var created = Number(result && result.created) || 0;
    var duplicates = Number(result && result.duplicates) || 0;
    var text = "Imported " + plural(created, kind === "pairs" ? "labelled pair" : "problem");
    if (duplicates) text += " (" + plural(duplicates, "duplicate") + " skipped)";
    return text + ".";
  }

  function errorText(status, data) {
    if (status === 401 || status === 403) return "Import refused: " + ((data && data.detail) || "log in as staff.");
    if (data && typeof data.detail === "string") return data.detail;
    if (data && typeof data === "object") {
      return Object.keys(data).map(function (key) { return key + ": " + [].concat(data[key]).join(" "); }).join("; ");
    }
    return "The server answered " + status + ".";
  }

  function reloadWith(message) {
    try { window.sessionStorage.setItem(FLASH, message); } catch (error) { /* shown without the reload */ }
    window.location.reload();
  }

  function busy(on) {
    submitButton.disabled = on;
    form.setAttribute("aria-busy", on ? "true" : "false");
  }

  function follow(jobId, kind) {
    var jobLink = { href: form.dataset.jobsUrl + "#job-" + jobId, text: "job " + jobId };
    return fetch(form.dataset.api + "jobs/" + jobId + "/", {
      credentials: "same-origin", headers: { "Accept": "application/json" },
    }).then(function (response) {
      return response.json().then(function (job) {
        if (!response.ok) throw new Error(errorText(response.status, job));
        setProgress(job.progress);
        if (job.status === "succeeded") {
          reloadWith(summary(job.result, kind) + " (job " + jobId + ")");
          return;
        }
        if (job.status === "failed" || job.status === "cancelled") {
          busy(false);
          say(["Import " + job.status + " (", jobLink, "): " + (job.error || "no reason given")], "error");
          return;
        }
        say(["Importing as ", jobLink, ": " + job.status + ", " + Math.round(100 * (Number(job.progress) || 0)) + " %"], "info");
        window.setTimeout(function () { follow(jobId, kind); }, POLL_MS);
      });
    }).catch(function (error) {
      busy(false);
      say(["Lost track of ", jobLink, ": " + error.message + " Its progress is on the jobs page."], "error");
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (!fileInput.files.length) {
      say("Choose a file to import first.", "error");
      fileInput.focus();
      return;
    }
    var option = format.options[format.selectedIndex];
    var kind = (option && option.dataset.kind) || "problems";
    var body = new FormData();
    body.append("file", fileInput.files[0]);
    body.append("format", format.value);
    body.append("kind", kind);
    if (split.value) body.append("split", split.value);
    busy(true);
    progress.hidden = true;
    say("Uploading " + fileInput.files[0].name + "…", "info");
    fetch(form.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
      body: body,
    }).then(function (response) {
      return response.json().catch(function () { return null; }).then(function (data) {
        if (response.status === 201) {
          reloadWith(summary(data, kind));
        } else if (response.status === 202 && data && data.job) {
          setProgress(0);
          follow(data.job, kind);
        } else {
          busy(false);
          say(errorText(response.status, data), "error");
        }
      });
    }).catch(function (error) {
      busy(false);
      say("The upload failed: " + error.message, "error");
    });
  });

  toggle.addEventListener("click", function () { open(form.hidden); });
  document.getElementById("import-cancel").addEventListener("click", function () { open(false); toggle.focus(); });

  // The message of an import that reloaded the page.
  var flash = null;
  try {
    flash = window.sessionStorage.getItem(FLASH);
    window.sessionStorage.removeItem(FLASH);
  } catch (error) { /* nothing carried over */ }
  if (flash) say(flash, "ok");
})();
