// papermem dashboard: the little behaviour the pages need. Loaded from
// this origin only (the Content-Security-Policy forbids inline script).
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  // Copy buttons: data-copy names the element whose text is copied, by
  // the clipboard API where allowed, else by selecting it and copying;
  // data-copied names the live region that then says so to screen readers.
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.addEventListener("click", function () {
      var el = document.getElementById(b.dataset.copy);
      if (!el) return;
      var done = function () {
        b.textContent = "Copied";
        var live = document.getElementById(b.dataset.copied || "");
        if (live) live.textContent = "Copied to the clipboard.";
      };
      var fallback = function () {
        select(el);
        try { if (document.execCommand("copy")) done(); } catch (e) { /* left selected to copy by hand */ }
      };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(el.textContent).then(done, fallback);
      } else {
        fallback();
      }
    });
  });

  // Uploads: sent by XMLHttpRequest to show their progress; the page the
  // server redirects to is then opened. Without script the form posts.
  var form = document.getElementById("upload-form");
  if (form) {
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      var bar = document.getElementById("upload-progress");
      var status = document.getElementById("upload-status");
      var xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.setRequestHeader("X-CSRF-Token", form.elements.csrf.value);
      bar.hidden = false;
      xhr.upload.addEventListener("progress", function (e) {
        if (e.lengthComputable) {
          bar.value = Math.round(100 * e.loaded / e.total);
          status.textContent = e.loaded < e.total ? "Uploading… " + bar.value + "%" : "Reading the file…";
        }
      });
      xhr.addEventListener("load", function () {
        if (xhr.status < 400) {
          window.location.assign(xhr.responseURL);
          return;
        }
        var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var err = doc.getElementById("error");
        status.textContent = err ? err.textContent : "Upload failed (" + xhr.status + ").";
        status.className = "error";
        bar.hidden = true;
      });
      xhr.addEventListener("error", function () {
        status.textContent = "Upload failed: the connection broke.";
        status.className = "error";
      });
      xhr.send(new FormData(form));
    });
  }
});

function select(el) {
  var range = document.createRange();
  range.selectNodeContents(el);
  var s = window.getSelection();
  s.removeAllRanges();
  s.addRange(range);
}
