// Mends two things of mdBook 0.5's own page template that axe-core (`./lab book accessibility`) reports, without
// copying the whole template into the kit: the sidebar toggle is a <label> carrying a button's ARIA attributes (a
// label may not carry them, and cannot be reached with the keyboard), and a code block or table that scrolls sideways
// cannot be scrolled with the keyboard unless it can take the focus.
(function () {
  "use strict";
  const toggle = document.getElementById("mdbook-sidebar-toggle");
  const box = document.getElementById("mdbook-sidebar-toggle-anchor");
  if (toggle && box) {
    toggle.setAttribute("role", "button");
    toggle.setAttribute("tabindex", "0");
    toggle.addEventListener("keydown", (e) => {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        toggle.click();
      }
    });
  }
  // what scrolls sideways (a wide table, a listing that cannot wrap) takes the focus, so the arrow keys scroll it
  for (const region of document.querySelectorAll(".content pre, .content .table-wrapper")) {
    if (region.scrollWidth > region.clientWidth && !region.querySelector("[tabindex]") && !region.hasAttribute("tabindex")) {
      region.setAttribute("tabindex", "0");
      if (!region.hasAttribute("aria-label")) {
        region.setAttribute("role", "region");
        region.setAttribute("aria-label", region.matches("pre") ? "code listing (scrolls sideways)" : "table (scrolls sideways)");
      }
    }
  }
})();
