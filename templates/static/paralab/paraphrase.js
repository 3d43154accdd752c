/* The "Paraphrase a problem" page: sends the pasted problem to POST /api/v1/paraphrase/?async=1,
 * polls the job it answers with (GET /api/v1/jobs/{id}/) and
 * draws each variant beside the original with the labelling screen's highlights, word diff and
 * server's numbers/units/names check (ParalabText). DOM nodes and textContent only, never HTML strings. */
(function () {
  "use strict";

  var form = document.getElementById("paraphrase-form");
  if (!form) return;
  var textBox = document.getElementById("paraphrase-text");
  var status = document.getElementById("paraphrase-status");
  var list = document.getElementById("variants");
  var template = document.getElementById("variant-template");
  var button = document.getElementById("paraphrase-button");

  function fmt(value, digits) {
    return typeof value === "number" ? value.toFixed(digits) : "–";
  }

  function show(result) {
    while (list.firstChild) list.removeChild(list.firstChild);
    var variants = result.variants || [];
    var judged = result.judge ? " The judge (" + result.judge.name + ") passed " + result.passed + " of " +
      result.candidates + " candidates (probability of a valid variant above " + fmt(result.judge.floor, 2) + ")." : "";
    if (result.llm_asked) judged += " The rules gave too few variants worth handing out, so the instruct LLM was asked for more.";
    status.textContent = variants.length
      ? variants.length + " variant" + (variants.length === 1 ? "" : "s") + " from " + result.candidates +
        " candidates in " + fmt(result.seconds, 2) + " s." + judged + (result.message ? " " + result.message + "." : "")
      : (result.message ? result.message + "." :
         "No generator could rewrite this problem (" + Object.keys(result.refused || {}).length + " refused).");
    variants.forEach(function (variant, index) {
      var node = template.content.firstElementChild.cloneNode(true);
      node.querySelector(".variant-rank").textContent = "#" + (index + 1);
      node.querySelector(".variant-generator").textContent = variant.generator + (variant.prompt ? " · " + variant.prompt : "");
      node.querySelector(".variant-scores").textContent =
        (typeof variant.valid_probability === "number" ? "valid " + Math.round(variant.valid_probability * 100) + "% · " : "") +
        (typeof variant.useful_probability === "number" ? "reworded enough " + Math.round(variant.useful_probability * 100) + "% · " : "") +
        "PQI " + fmt(variant.PQI, 3) + " · S " + fmt(variant.S, 3) + " · D " + fmt(variant.D, 3) + " · N " + fmt(variant.N, 2);
      var reasons = node.querySelector(".variant-reasons");
      if (reasons) {
        (variant.reasons || []).forEach(function (check) {
          if (check.check === "decision" || check.check === "strongest evidence against") return;
          var item = document.createElement("li");
          item.className = check.passed ? "check-pass" : "check-fail";
          item.textContent = (check.passed ? "✓ " : "✗ ") + check.check + ": " + check.detail;
          reasons.appendChild(item);
        });
      }
      node.dataset.numbersKept = variant.numbers_kept ? "1" : "0";
      var original = { text: result.problem.text, spans: result.problem.spans };
      var rewritten = { text: variant.text, spans: variant.spans };
      window.ParalabText.renderPair(node.querySelector(".variant-original"), node.querySelector(".variant-text"),
                                    original, rewritten);
      window.ParalabText.renderChecks(node.querySelector(".variant-checks"), variant.checks);
      list.appendChild(node);
    });
  }

  document.getElementById("paraphrase-example").addEventListener("click", function (event) {
    textBox.value = event.currentTarget.dataset.example;
    textBox.focus();
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var generators = Array.prototype.map.call(
      form.querySelectorAll('input[name="generators"]:checked'), function (box) { return box.value; });
    if (!generators.length) {  // an empty list would mean "the defaults" to the API: say so instead
      status.textContent = "Tick at least one generator.";
      return;
    }
    var body = {
      text: textBox.value,
      k: parseInt(document.getElementById("paraphrase-k").value, 10) || 3,
      select: document.getElementById("paraphrase-select").value,
      generators: generators,
    };
    button.disabled = true;
    status.textContent = "Paraphrasing…";
    // Asked as a job: the answer comes at once and the page polls the job, so a slow generator
    // (a neural one on a CPU takes minutes) never leaves a request hanging.
    fetch(form.dataset.api + "?async=1", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": window.ParalabCsrf.token() },
      body: JSON.stringify(body),
    }).then(function (response) {
      return response.json().then(function (data) { return { ok: response.ok, data: data }; });
    }).then(function (answer) {
      if (!answer.ok) {
        while (list.firstChild) list.removeChild(list.firstChild);
        var data = answer.data || {};
        status.textContent = data.detail || Object.keys(data).map(function (k) { return k + ": " + data[k]; }).join("; ");
        return null;
      }
      return poll(answer.data.url, Date.now());
    }).catch(function (error) {
      status.textContent = "The request failed: " + error;
    }).then(function () {
      button.disabled = false;
    });
  });

  /* Poll the paraphrase job until it ends; show its progress meanwhile. */
  function poll(url, started) {
    return fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) {
        if (!response.ok) throw new Error("the job could not be read (HTTP " + response.status + ")");
        return response.json();
      }).then(function (job) {
        if (job.status === "succeeded") { show(job.result || {}); return null; }
        if (job.status === "failed" || job.status === "cancelled") {
          while (list.firstChild) list.removeChild(list.firstChild);
          status.textContent = job.status === "failed" ? (job.error || "The job failed.") : "Cancelled.";
          return null;
        }
        var seconds = Math.round((Date.now() - started) / 1000);
        status.textContent = "Paraphrasing… " + Math.round((job.progress || 0) * 100) + "% (" + seconds + " s" +
          (typeof job.eta_seconds === "number" ? ", about " + Math.round(job.eta_seconds) + " s left" : "") + ")";
        return new Promise(function (resolve) { window.setTimeout(resolve, 700); })
          .then(function () { return poll(url, started); });
      });
  }
})();
