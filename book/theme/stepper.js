// The book's counterexample stepper. `./lab book` draws every counterexample as a swimlane table and puts its
// trace's frames beside it as inline JSON (Swimlane.stepper_markdown in .lab/handofflab/ground/swimlanes.py): for each row,
// the whole state after it, what it changed and where each thread is. This script turns the table into a cursor over
// its rows: a click or the arrow keys move it, the panel beside shows the state at the cursor with the row's changes
// marked, and a lasso's loop can be replayed. Without JavaScript the reader keeps the table. It reads nothing but the
// page itself, so the book works from file:// and offline.
(function () {
  "use strict";

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;  // trace text is data, never markup
    return e;
  }

  let count = 0;

  function init(box) {
    const data = JSON.parse(box.querySelector("script.stepper-data").textContent);
    const table = box.querySelector("table");
    if (!table || !data.steps.length) return;
    const id = "stepper-" + (++count);
    const rows = {};  // row number -> its <tr>; "end" -> the ending row
    for (const tr of table.querySelectorAll("tbody tr")) {
      const head = tr.cells[0].textContent.trim();
      const n = parseInt(head, 10);
      rows[Number.isNaN(n) ? head : n] = tr;
      tr.addEventListener("click", () => { stop(); go(Number.isNaN(n) ? last : n); table.focus(); });
    }
    const last = data.steps.length;
    if (data.loop_from && rows[data.loop_from]) rows[data.loop_from].classList.add("stepper-loop-start");

    // the table and the panel side by side (the panel wraps below it on a narrow page)
    const body = el("div", { class: "stepper-body" });
    const wrap = table.closest(".table-wrapper") || table;  // mdBook wraps each table in a scrolling div
    wrap.parentNode.insertBefore(body, wrap);
    body.appendChild(wrap);
    table.setAttribute("tabindex", "0");
    table.setAttribute("aria-describedby", id + "-help");
    table.classList.add("stepper-table");
    const panel = el("div", { class: "stepper-panel", id: id + "-panel", role: "region",
                              "aria-label": "State at the cursor: " + data.title, "aria-live": "polite" });
    body.appendChild(panel);

    const bar = el("div", { class: "stepper-bar", role: "toolbar", "aria-label": "Step through " + data.title,
                            "aria-controls": id + "-panel" });
    const button = (label, title, act) => {
      const b = el("button", { type: "button", title: title }, label);  // its name is the text it shows
      b.addEventListener("click", () => { stop(); act(); });
      bar.appendChild(b);
      return b;
    };
    button("« first", "First state (before row 1)", () => go(0));
    button("‹ back", "Back one step", () => go(cursor - 1));
    button("next ›", "Forward one step", () => go(cursor + 1));
    button("last »", "Last step", () => go(last));
    let replay = null;
    if (data.loop_from) {
      replay = el("button", { type: "button", class: "stepper-replay",
                              title: "Replay the loop: rows " + data.loop_from + "–" + last + ", then back" }, "↻ replay the loop");
      replay.addEventListener("click", () => (timer ? stop() : play()));
      bar.appendChild(replay);
    }
    const help = el("span", { class: "stepper-help", id: id + "-help" },
                    "Click a row, or focus the table and use ↑ ↓ (or ← →), Home, End" +
                    (data.loop_from ? ", L to replay the loop." : "."));
    bar.appendChild(help);
    box.insertBefore(bar, body);

    let cursor = 0;
    let timer = null;

    function stop() {
      if (timer) clearInterval(timer);
      timer = null;
      if (replay) replay.textContent = "↻ replay the loop";
    }

    function play() {  // the cycle's rows in turn, then back to its start: what repeats for ever
      stop();
      go(data.loop_from);
      replay.textContent = "■ stop the replay";
      timer = setInterval(() => go(cursor >= last ? data.loop_from : cursor + 1), 900);
    }

    function go(k) {
      cursor = Math.max(0, Math.min(last, k));
      for (const tr of Object.values(rows)) {
        tr.classList.remove("stepper-current");
        tr.removeAttribute("aria-current");
      }
      const tr = cursor ? rows[cursor] : null;
      if (tr) {
        tr.classList.add("stepper-current");
        tr.setAttribute("aria-current", "step");
        if (tr.scrollIntoView) tr.scrollIntoView({ block: "nearest" });
      }
      if (cursor === last && rows.end) rows.end.classList.add("stepper-current");
      draw();
    }

    function draw() {
      const f = cursor ? data.steps[cursor - 1] : null;
      const state = f ? f.state : data.initial;
      const changed = new Set(f ? f.changed : []);
      panel.replaceChildren();
      const head = el("p", { class: "stepper-where" });
      head.appendChild(el("strong", {}, cursor ? "Step " + cursor + " of " + last : "Before step 1"));
      if (f) head.appendChild(document.createTextNode(" — " + (f.thread || "(no thread)") + ": " + f.action));
      if (cursor && cursor >= data.loop_from && data.loop_from) {
        head.appendChild(el("span", { class: "stepper-in-loop" }, " ↻ in the loop (rows " + data.loop_from + "–" + last + ")"));
      }
      panel.appendChild(head);

      panel.appendChild(el("p", { class: "stepper-heading" }, "Threads"));
      const lanes = el("ul", { class: "stepper-threads" });
      for (const t of data.threads) {
        const li = el("li");
        const name = el("code", {}, t);
        const moved = f && f.thread === t;
        li.appendChild(moved ? wrapMark(name) : name);
        const doing = cursor === last && data.ending[t] ? data.ending[t] : (f ? f.at[t] : "not started");
        li.appendChild(document.createTextNode(" " + doing));
        lanes.appendChild(li);
      }
      panel.appendChild(lanes);

      const names = Object.keys(state);
      panel.appendChild(el("p", { class: "stepper-heading" }, names.length ? "Shared state" : "Shared state: the checker reports none for this trace"));
      if (names.length) {
        const dl = el("dl", { class: "stepper-state" });
        for (const k of names) {
          const dt = el("dt", {}, k);
          const dd = el("dd");
          const value = state[k];
          if (value !== null && typeof value === "object") {  // a function or record, entry by entry
            const keys = Object.keys(value);
            dd.appendChild(document.createTextNode("["));
            keys.forEach((key, i) => {
              const entry = el("span", {}, key + " ↦ " + value[key]);
              if (changed.has(k + "[" + key + "]")) {
                entry.classList.add("stepper-changed");
                entry.insertBefore(el("span", { class: "stepper-sr" }, "changed: "), entry.firstChild);
                dt.classList.add("stepper-changed");
              }
              dd.appendChild(entry);
              if (i < keys.length - 1) dd.appendChild(document.createTextNode(", "));
            });
            dd.appendChild(document.createTextNode("]"));
          } else {
            dd.textContent = value === "" ? "(seen)" : value;
          }
          if (changed.has(k)) {
            dt.classList.add("stepper-changed");
            dd.classList.add("stepper-changed");
            dd.insertBefore(el("span", { class: "stepper-sr" }, "changed: "), dd.firstChild);
          }
          dl.append(dt, dd);
        }
        panel.appendChild(dl);
      }
      if (f && f.writes.length) panel.appendChild(el("p", { class: "stepper-writes" }, "This step wrote: " + f.writes.join(", ")));
      if (cursor === last) panel.appendChild(el("p", { class: "stepper-verdict" }, data.checker + " reports " + data.verdict));
    }

    function wrapMark(node) {
      const m = el("mark", { class: "stepper-changed" });
      m.appendChild(node);
      return m;
    }

    table.addEventListener("keydown", (e) => {
      if (e.altKey || e.ctrlKey || e.metaKey) return;
      const keys = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 };
      if (e.key in keys) go(cursor + keys[e.key]);
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(last);
      else if ((e.key === "l" || e.key === "L") && data.loop_from) { timer ? stop() : play(); }
      else return;
      if (e.key !== "l" && e.key !== "L") stop();
      e.preventDefault();
      e.stopPropagation();  // the book's own arrow keys turn the page; here they move the cursor
    });
    box.classList.add("stepper-ready");
    go(0);
  }

  document.querySelectorAll("div.stepper[data-stepper]").forEach(init);
})();
