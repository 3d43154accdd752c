/* Shared text rendering for the annotation pages: a word problem with its highlight spans
 * (numbers, units, names from the API's "spans"), a word-level diff against its pair, and the
 * server's numbers/units/names check.
 *
 * The diff is a longest common subsequence over word tokens (case-insensitive): tokens of the
 * original outside the LCS are shown as deleted, tokens of the paraphrase outside it as
 * inserted. Everything is built with DOM nodes and textContent, never HTML strings.
 * Exposed as window.ParalabText. */
(function () {
  "use strict";

  var TOKEN_RE = /[\p{L}\p{N}]+(?:[.,'\u2019\/-][\p{L}\p{N}]+)*|\S/gu;
  var MAX_CELLS = 4000000; // beyond this (about 2000 x 2000 words) no diff is drawn
  var KIND_NAMES = { number: "number", unit: "unit", entity: "name" };

  function tokenize(text) {
    var tokens = [];
    var match;
    TOKEN_RE.lastIndex = 0;
    while ((match = TOKEN_RE.exec(text)) !== null) {
      tokens.push({ start: match.index, end: match.index + match[0].length, norm: match[0].toLowerCase() });
    }
    return tokens;
  }

  /* Indices of the tokens of a and b that are not in their longest common subsequence.
   * Returns null when the texts are too long to compare. */
  function diffTokens(a, b) {
    var n = a.length, m = b.length;
    var prefix = 0;
    while (prefix < n && prefix < m && a[prefix].norm === b[prefix].norm) prefix++;
    var suffix = 0;
    while (suffix < n - prefix && suffix < m - prefix && a[n - 1 - suffix].norm === b[m - 1 - suffix].norm) suffix++;
    var aa = a.slice(prefix, n - suffix), bb = b.slice(prefix, m - suffix);
    var rows = aa.length, cols = bb.length;
    var aChanged = {}, bChanged = {};
    if ((rows + 1) * (cols + 1) > MAX_CELLS) return null;
    // table[i][j] = LCS length of aa[i:] and bb[j:]
    var width = cols + 1;
    var table = new Int32Array((rows + 1) * width);
    for (var i = rows - 1; i >= 0; i--) {
      for (var j = cols - 1; j >= 0; j--) {
        table[i * width + j] = aa[i].norm === bb[j].norm
          ? table[(i + 1) * width + j + 1] + 1
          : Math.max(table[(i + 1) * width + j], table[i * width + j + 1]);
      }
    }
    i = 0; j = 0;
    while (i < rows && j < cols) {
      if (aa[i].norm === bb[j].norm) { i++; j++; }
      else if (table[(i + 1) * width + j] >= table[i * width + j + 1]) { aChanged[prefix + i] = true; i++; }
      else { bChanged[prefix + j] = true; j++; }
    }
    for (; i < rows; i++) aChanged[prefix + i] = true;
    for (; j < cols; j++) bChanged[prefix + j] = true;
    // A word deleted on one side and inserted on the other was moved, not lost: pair them up
    // (in order) and mark both as moved.
    var pending = {};
    Object.keys(aChanged).forEach(function (index) {
      var norm = a[index].norm;
      (pending[norm] = pending[norm] || []).push(Number(index));
    });
    Object.keys(bChanged).map(Number).sort(function (x, y) { return x - y; }).forEach(function (index) {
      var queue = pending[b[index].norm];
      if (queue && queue.length && /[\p{L}\p{N}]/u.test(b[index].norm)) {
        aChanged[queue.shift()] = "moved";
        bChanged[index] = "moved";
      }
    });
    return { a: aChanged, b: bChanged };
  }

  /* Character ranges of the changed tokens, neighbours joined across whitespace. */
  function changedRanges(text, tokens, changed) {
    var ranges = [];
    tokens.forEach(function (token, index) {
      if (!changed[index]) return;
      var kind = changed[index] === "moved" ? "moved" : "changed";
      var last = ranges[ranges.length - 1];
      if (last && last.kind === kind && last.index === index - 1 && /^\s*$/.test(text.slice(last[1], token.start))) {
        last[1] = token.end;
        last.index = index;
      } else {
        var range = [token.start, token.end];
        range.index = index;
        range.kind = kind;
        ranges.push(range);
      }
    });
    return ranges;
  }

  /* Fill `container` with `text`, each span in a <mark class="hl hl-KIND">, each changed range in
   * a <del> or <ins> (diffTag) element. */
  function render(container, text, spans, ranges, diffTag) {
    while (container.firstChild) container.removeChild(container.firstChild);
    spans = (spans || []).filter(function (s) { return s.end > s.start && s.start >= 0 && s.end <= text.length; });
    ranges = ranges || [];
    var cuts = [0, text.length];
    spans.forEach(function (s) { cuts.push(s.start, s.end); });
    ranges.forEach(function (r) { cuts.push(r[0], r[1]); });
    cuts = cuts.filter(function (c, i, all) { return all.indexOf(c) === i; }).sort(function (x, y) { return x - y; });

    var si = 0, ri = 0;
    var mark = null, markIndex = -1, diffEl = null;
    for (var k = 0; k + 1 < cuts.length; k++) {
      var from = cuts[k], to = cuts[k + 1];
      if (to <= from) continue;
      while (si < spans.length && spans[si].end <= from) si++;
      while (ri < ranges.length && ranges[ri][1] <= from) ri++;
      var span = si < spans.length && spans[si].start <= from ? spans[si] : null;
      var inRange = ri < ranges.length && ranges[ri][0] <= from;
      var parent = container;
      if (span) {
        if (markIndex !== si) {
          mark = document.createElement("mark");
          mark.className = "hl hl-" + span.kind;
          var label = (KIND_NAMES[span.kind] || span.kind) + (span.label ? ": " + String(span.label).toLowerCase() : "");
          mark.title = label;
          mark.dataset.kind = span.kind;
          container.appendChild(mark);
          markIndex = si;
          diffEl = null;
        }
        parent = mark;
      } else if (markIndex !== -1) {
        markIndex = -1;
        diffEl = null;
      }
      var piece = text.slice(from, to);
      // Whitespace alone between two marked pieces stays plain: a struck-out space reads as a dash.
      if (inRange && diffTag && !/^\s+$/.test(piece)) {
        var moved = ranges[ri].kind === "moved";
        if (!diffEl || diffEl.parentNode !== parent || diffEl.dataset.range !== String(ri)) {
          diffEl = document.createElement(moved ? "span" : diffTag);
          diffEl.className = moved ? "diff-move" : (diffTag === "del" ? "diff-del" : "diff-ins");
          if (moved) diffEl.title = "moved";
          diffEl.dataset.range = String(ri);
          parent.appendChild(diffEl);
        }
        diffEl.appendChild(document.createTextNode(piece));
      } else {
        diffEl = null;
        parent.appendChild(document.createTextNode(piece));
      }
    }
  }

  /* Render an original and its paraphrase side by side with highlights and the word diff. */
  function renderPair(leftEl, rightEl, left, right) {
    var a = tokenize(left.text || ""), b = tokenize(right.text || "");
    var diff = diffTokens(a, b);
    render(leftEl, left.text || "", left.spans, diff ? changedRanges(left.text, a, diff.a) : [], "del");
    render(rightEl, right.text || "", right.spans, diff ? changedRanges(right.text, b, diff.b) : [], "ins");
    return diff;
  }

  /* The server's numbers/units/names check of a pair (the API's "checks": {numbers, units, names},
   * each {ok, message, ...}; ml/checks.py decides, this only shows it): one line per check. */
  function renderChecks(box, checks) {
    if (!box) return;
    while (box.firstChild) box.removeChild(box.firstChild);
    var ok = true;
    ["numbers", "units", "names"].forEach(function (name) {
      var c = (checks || {})[name];
      if (!c || !c.message) return;
      var part = document.createElement("span");
      part.className = "check " + (c.ok ? "check-ok" : "check-warn");
      part.dataset.check = name;
      part.textContent = c.message;
      if (!c.ok) ok = false;
      box.appendChild(part);
    });
    box.dataset.ok = ok ? "1" : "0";
    box.hidden = !box.firstChild;
  }

  window.ParalabText = {
    renderChecks: renderChecks, tokenize: tokenize, diffTokens: diffTokens, render: render, renderPair: renderPair };
})();
