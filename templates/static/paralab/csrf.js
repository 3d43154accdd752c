/* The CSRF token of the session, for the pages' POSTs to the REST API (session auth). Loaded by
   base.html before every page's own scripts. */
(function () {
  "use strict";

  function cookie(name) {
    var parts = document.cookie ? document.cookie.split(";") : [];
    for (var i = 0; i < parts.length; i++) {
      var part = parts[i].trim();
      if (part.indexOf(name + "=") === 0) return decodeURIComponent(part.slice(name.length + 1));
    }
    return "";
  }

  window.ParalabCsrf = { token: function () { return cookie("csrftoken"); } };
})();
