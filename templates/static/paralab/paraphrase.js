/* The "Paraphrase a problem" page: sends the pasted problem to POST /api/v1/paraphrase/?async=1,
 * polls the job it answers with (GET /api/v1/jobs/{id}/) and
 * draws each variant beside the original with the labelling screen's highlights, word diff and
 * server's numbers/units/names check (ParalabText). While the job runs it draws the job's
 * "partial" variants as they come (the rule variants at once, each verified rewrite of the
 * language model as it passes) and says in a second status line what the language model is
 * doing; its rewrites are marked with the answer both texts solve to.
 * DOM nodes and textContent only, never HTML strings. */
(function () {
  "use strict";

  var form = document.getElementById("paraphrase-form");
  if (!form) return;
  var textBox = document.getElementById("paraphrase-text");
  var status = document.getElementById("paraphrase-status");
  var list = document.getElementById("variants");
  var template = document.getElementById("variant-template");
  var llmLine = document.getElementById("paraphrase-llm");
  var button = document.getElementById("paraphrase-button");
  var LLM_GENERATOR = "instruct_llm";
  var drawn = null;  // what the list shows now (JSON of the problem and variants): redrawn only when it changes

  function fmt(value, digits) {
    return typeof value === "number" ? value.toFixed(digits) : "–";
  }

  function clearVariants() {
    while (list.firstChild) list.removeChild(list.firstChild);
    drawn = null;
  }

  /* What the language model did or is doing (the job's partial.llm or result.llm), in words. */
  function llmText(llm) {
    if (!llm) return "";
    if (llm.state === "running") {
      return "Rewording with the language model… " + (llm.verified || 0) + " verified so far" +
        (llm.refused ? ", " + llm.refused + " refused" : "") + ".";
    }
    if (llm.message) return llm.message;
    if (llm.state === "done") {
      return llm.verified
        ? llm.verified + " reworded by the language model and checked by solving" +
          (typeof llm.seconds === "number" ? " (" + fmt(llm.seconds, 1) + " s)" : "") + "."
        : "The language model gave no rewrite that passed the checks.";
    }
    return "";
  }

  function showLLM(llm) {
    var text = llmText(llm);
    llmLine.textContent = text;
    llmLine.hidden = !text;
    llmLine.dataset.state = (llm && llm.state) || "";
  }

  /* "checked by solving: both solve to 6" from an LLM rewrite's "same answer" reason. */
  function sameAnswer(variant) {
    var check = null;
    (variant.reasons || []).forEach(function (c) { if (c.check === "same answer") check = c; });
    if (!check) return "not checked by solving";
    if (check.passed) return "checked by solving: " + check.detail;
    if (check.undecided) return "solving could not decide: " + check.detail;
    return "failed the solving check: " + check.detail;
  }

  /* The variants beside the original (problem: {text, spans}; spans may be missing while the job runs). */
  function drawVariants(problem, variants) {
    var key = JSON.stringify([problem.text, problem.spans || null, variants]);
    if (key === drawn) return;  // unchanged since the last poll: keep the page (and any opened details) as it is
    clearVariants();
    drawn = key;
    variants.forEach(function (variant, index) {
      var node = template.content.firstElementChild.cloneNode(true);
      node.dataset.generator = variant.generator;
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
          item.textContent = (check.passed ? "✓ " : check.undecided ? "? " : "✗ ") + check.check + ": " + check.detail;
          reasons.appendChild(item);
        });
      }
      if (variant.generator === LLM_GENERATOR) {
        var mark = node.querySelector(".variant-llm");
        mark.querySelector(".variant-llm-check").textContent = sameAnswer(variant) +
          (typeof variant.reworded === "number" ? " · " + Math.round(variant.reworded * 100) + "% reworded (1 − BLEU)" : "");
        mark.hidden = false;
      }
      node.dataset.numbersKept = variant.numbers_kept ? "1" : "0";
      var original = { text: problem.text, spans: problem.spans };
      var rewritten = { text: variant.text, spans: variant.spans };
      window.ParalabText.renderPair(node.querySelector(".variant-original"), node.querySelector(".variant-text"),
                                    original, rewritten);
      window.ParalabText.renderChecks(node.querySelector(".variant-checks"), variant.checks);
      list.appendChild(node);
    });
  }

  /* The finished job's answer. */
  function show(result) {
    var variants = result.variants || [];
    var judged = result.judge ? " The judge (" + result.judge.name + ") passed " + result.passed + " of " +
      result.candidates + " candidates (probability of a valid variant above " + fmt(result.judge.floor, 2) + ")." : "";
    status.textContent = variants.length
      ? variants.length + " variant" + (variants.length === 1 ? "" : "s") + " from " + result.candidates +
        " candidates in " + fmt(result.seconds, 2) + " s." + judged + (result.message ? " " + result.message + "." : "")
      : (result.message ? result.message + "." :
         "No generator could rewrite this problem (" + Object.keys(result.refused || {}).length + " refused).");
    showLLM(result.llm);
    drawVariants(result.problem || { text: "" }, variants);
  }

  /* A running job's partial answer: what it has so far, with the original as it was sent. */
  function showPartial(job, seconds) {
    var partial = job.partial || {};
    var variants = partial.variants || [];
    status.textContent = variants.length + " variant" + (variants.length === 1 ? "" : "s") + " so far (" + seconds +
      " s); the rest is still running.";
    showLLM(partial.llm);
    var problem = partial.problem || { text: (job.params && job.params.text) || "" };
    drawVariants(problem, variants);
  }

  /* The ticked generators ({names}) and whether they are the default set ({defaults}; the
   * instruct_llm box aside): then none are named, so the server runs its defaults and, with the
   * language model on, its rewording after them (a named list runs those generators alone). */
  function tickedGenerators() {
    var ticked = [], changed = false;
    Array.prototype.forEach.call(form.querySelectorAll('input[name="generators"]'), function (box) {
      if (box.checked) ticked.push(box.value);
      if (box.value !== LLM_GENERATOR && box.checked !== (box.dataset.default === "1")) changed = true;
    });
    return { names: ticked, defaults: !changed && ticked.length > 0 };
  }

  document.getElementById("paraphrase-example").addEventListener("click", function (event) {
    textBox.value = event.currentTarget.dataset.example;
    textBox.focus();
  });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    var generators = tickedGenerators();
    if (!generators.names.length) {  // an empty list would mean "the defaults" to the API: say so instead
      status.textContent = "Tick at least one generator.";
      return;
    }
    var body = {
      text: textBox.value,
      k: parseInt(document.getElementById("paraphrase-k").value, 10) || 3,
      select: document.getElementById("paraphrase-select").value,
    };
    if (!generators.defaults) body.generators = generators.names;
    button.disabled = true;
    clearVariants();
    showLLM(null);
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
        clearVariants();
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
          clearVariants();
          showLLM(null);
          status.textContent = job.status === "failed" ? (job.error || "The job failed.") : "Cancelled.";
          return null;
        }
        var seconds = Math.round((Date.now() - started) / 1000);
        if (job.partial && job.partial.variants) {
          showPartial(job, seconds);
        } else {
          status.textContent = "Paraphrasing… " + Math.round((job.progress || 0) * 100) + "% (" + seconds + " s" +
            (typeof job.eta_seconds === "number" ? ", about " + Math.round(job.eta_seconds) + " s left" : "") + ")";
        }
        return new Promise(function (resolve) { window.setTimeout(resolve, 700); })
          .then(function () { return poll(url, started); });
      });
  }
})();
