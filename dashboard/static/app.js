// papermem dashboard: the little behaviour the pages need. Loaded from
// this origin only (the Content-Security-Policy forbids inline script).
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  // Copy buttons: data-copy names the element whose text is copied.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.addEventListener("click", function () {
      var el = document.getElementById(b.dataset.copy);
      if (!el) return;
      var done = function () { b.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(el.textContent).then(done, function () { select(el); });
      } else {
        select(el);
        try { document.execCommand("copy"); done(); } catch (e) { /* selected for manual copy */ }
      }
    });
  });
});

function select(el) {
  var range = document.createRange();
  range.selectNodeContents(el);
  var s = window.getSelection();
  s.removeAllRanges();
  s.addRange(range);
}
