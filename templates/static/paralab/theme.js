/* The colour theme: "auto" follows the system (prefers-color-scheme), "light" and "dark" force
 * one. The choice is kept in localStorage and written to <html data-theme>, which site.css reads.
 * Loaded in <head> without defer, so the stored theme applies before the first paint; the
 * header's #theme-select is wired once the page has loaded. */
(function () {
  "use strict";

  var KEY = "paralab-theme";
  var THEMES = ["auto", "light", "dark"];

  function stored() {
    var value = null;
    try { value = window.localStorage.getItem(KEY); } catch (error) { /* storage off: auto */ }
    return THEMES.indexOf(value) >= 0 ? value : "auto";
  }

  function apply(theme) {
    document.documentElement.setAttribute("data-theme", theme);
    var select = document.getElementById("theme-select");
    if (select && select.value !== theme) select.value = theme;
  }

  function choose(theme) {
    theme = THEMES.indexOf(theme) >= 0 ? theme : "auto";
    try { window.localStorage.setItem(KEY, theme); } catch (error) { /* this page only */ }
    apply(theme);
  }

  apply(stored());

  function wire() {
    var select = document.getElementById("theme-select");
    if (!select) return;
    select.value = stored();
    select.addEventListener("change", function () { choose(select.value); });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", wire);
  else wire();

  // Another tab changed the theme: follow it.
  window.addEventListener("storage", function (event) {
    if (event.key === KEY) apply(stored());
  });

  window.ParalabTheme = { choose: choose, current: stored };
})();
