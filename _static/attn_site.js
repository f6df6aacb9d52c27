// Click a figure to see it at its full size; click again (or press Escape) to close.
document.addEventListener("DOMContentLoaded", function () {
  function close() {
    var open = document.querySelector(".attn-zoom");
    if (open) { open.remove(); }
  }
  document.querySelectorAll(".cell_output img").forEach(function (img) {
    img.addEventListener("click", function () {
      close();
      var box = document.createElement("div");
      box.className = "attn-zoom";
      box.setAttribute("role", "dialog");
      box.setAttribute("aria-label", "Figure at full size; click to close");
      var big = document.createElement("img");
      big.src = img.src;
      big.alt = img.alt;
      box.appendChild(big);
      box.addEventListener("click", close);
      document.body.appendChild(box);
    });
  });
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") { close(); } });
  // The theme opens every header link in a new tab; the other edition of this page replaces it.
  document.querySelectorAll('a[class*="btn-language-button"]').forEach(function (a) {
    a.removeAttribute("target");
  });
});
