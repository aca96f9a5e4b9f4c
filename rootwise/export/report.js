// rootwise report: folds subtrees of the inline SVG tree and shows the details of a clicked node.
// Plain script, no library. The tree's markup is drawn by Python (rootwise/export/svg.py); this
// script lays it out again when subtrees are folded, by the rule of rootwise/export/layout.py:
// each node owns an interval as wide as its box or its children side by side, children share
// their parent's interval left to right, a parent is centred over its first and last child.
"use strict";

function rootwiseReport(root) {
  const data = JSON.parse(root.querySelector("script.rw-data").textContent);
  const nodes = data.nodes;
  const L = data.layout;
  const svg = root.querySelector("svg.rw-tree");
  const panel = root.querySelector(".rw-details");
  const groups = {};
  const edges = {};
  svg.querySelectorAll("g.rw-node").forEach((g) => { groups[g.dataset.node] = g; });
  svg.querySelectorAll("g.rw-edge").forEach((g) => { edges[g.dataset.child] = g; });
  const folded = new Set();
  let selected = null;
  // zoom: screen pixels per layout pixel; null until the first layout fits the tree to the pane
  const scroller = root.querySelector(".rw-scroll");
  let zoom = null;
  let natural = {width: 0, height: 0, rootX: 0};

  // ------------------------------------------------------------------ layout
  function visibleOrder() {
    // parents before children (depth first, children left to right): no recursion
    const order = [];
    const stack = ["0"];
    while (stack.length) {
      const id = stack.pop();
      order.push(id);
      if (folded.has(id)) continue;
      const kids = nodes[id].kids;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(String(kids[i]));
    }
    return order;
  }

  function shownKids(id) {
    return folded.has(id) ? [] : nodes[id].kids.map(String);
  }

  function layout() {
    const order = visibleOrder();
    const span = {}, left = {}, level = {}, x = {};
    const inner = (kids) => kids.reduce((s, c) => s + span[c], 0) + L.hGap * Math.max(kids.length - 1, 0);
    for (let i = order.length - 1; i >= 0; i--) {
      const id = order[i];
      span[id] = Math.max(nodes[id].slot, inner(shownKids(id)));
    }
    left["0"] = 0;
    level["0"] = 0;
    for (const id of order) {
      const kids = shownKids(id);
      let at = left[id] + (span[id] - inner(kids)) / 2;
      for (const c of kids) {
        left[c] = at;
        level[c] = level[id] + 1;
        at += span[c] + L.hGap;
      }
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const id = order[i];
      const kids = shownKids(id);
      const half = nodes[id].w / 2;
      if (kids.length) {
        const mid = (x[kids[0]] + x[kids[kids.length - 1]]) / 2;
        x[id] = Math.min(Math.max(mid, left[id] + half), left[id] + span[id] - half);
      } else {
        x[id] = left[id] + span[id] / 2;
      }
    }
    const tallest = [];
    for (const id of order) {
      tallest[level[id]] = Math.max(tallest[level[id]] || 0, nodes[id].h);
    }
    const levelTop = [L.top];
    for (let d = 1; d < tallest.length; d++) levelTop.push(levelTop[d - 1] + tallest[d - 1] + L.vGap);
    const y = {};
    for (const id of order) y[id] = levelTop[level[id]];

    const shown = new Set(order);
    for (const id in groups) {
      const g = groups[id];
      if (!shown.has(id)) {
        g.style.display = "none";
        continue;
      }
      g.style.display = "";
      g.setAttribute("transform", `translate(${(x[id] - nodes[id].w / 2).toFixed(1)},${y[id].toFixed(1)})`);
      const toggle = g.querySelector(".rw-toggle");
      if (toggle) {
        const closed = folded.has(id);
        toggle.querySelector("text").textContent = closed ? "+" : "−";
        g.classList.toggle("rw-folded", closed);
      }
    }
    for (const id in edges) {
      const e = edges[id];
      if (!shown.has(id)) {
        e.style.display = "none";
        continue;
      }
      e.style.display = "";
      const p = String(nodes[id].parent);
      const line = e.querySelector("line");
      line.setAttribute("x1", x[p].toFixed(1));
      line.setAttribute("y1", (y[p] + nodes[p].h).toFixed(1));
      line.setAttribute("x2", x[id].toFixed(1));
      line.setAttribute("y2", y[id].toFixed(1));
      const label = e.querySelector("text");
      label.setAttribute("x", x[id].toFixed(1));
      label.setAttribute("y", (y[id] - L.labelOffset).toFixed(1));
    }
    const width = Math.max(span["0"], L.minWidth) + 2 * L.margin;
    const height = levelTop[levelTop.length - 1] + tallest[tallest.length - 1] + 2 * L.margin + 14;
    natural = {width: width, height: height, rootX: x["0"] + L.margin};
    svg.setAttribute("viewBox", `${-L.margin} ${-L.margin} ${width.toFixed(0)} ${height.toFixed(0)}`);
    if (zoom === null) zoom = fitZoom();
    applyZoom();
  }

  // ------------------------------------------------------------------ zoom and pan
  function fitZoom() {
    // the whole width in the pane, never larger than life
    const room = Math.max(scroller.clientWidth - 8, 80);
    return Math.min(1, room / natural.width);
  }

  function applyZoom() {
    svg.setAttribute("width", (natural.width * zoom).toFixed(0));
    svg.setAttribute("height", (natural.height * zoom).toFixed(0));
    const label = root.querySelector(".rw-zoom-level");
    if (label) label.textContent = `${Math.round(zoom * 100)}%`;
  }

  function zoomBy(factor, cx, cy) {
    // keep the point under (cx, cy) of the pane where it is
    const old = zoom;
    zoom = Math.min(Math.max(zoom * factor, 0.05), 4);
    const px = scroller.scrollLeft + cx, py = scroller.scrollTop + cy;
    applyZoom();
    scroller.scrollLeft = px * zoom / old - cx;
    scroller.scrollTop = py * zoom / old - cy;
  }

  function showRoot() {
    scroller.scrollLeft = natural.rootX * zoom - scroller.clientWidth / 2;
    scroller.scrollTop = 0;
  }

  function fold(id, closed) {
    if (closed) folded.add(id); else folded.delete(id);
  }

  // ------------------------------------------------------------------ details of a node
  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }

  function pathOf(id) {
    const tests = [];
    for (let n = id; n !== "0"; n = String(nodes[n].parent)) tests.push(nodes[n].test);
    return tests.reverse();
  }

  function distribution(rec) {
    const table = el("table", null, "rw-table rw-dist");
    const head = table.createTHead().insertRow();
    for (const h of ["class", "weight", "share"]) head.appendChild(el("th", h));
    const body = table.createTBody();
    data.classes.forEach((name, k) => {
      const row = body.insertRow();
      row.appendChild(el("td", name));
      row.appendChild(el("td", rec.counts[k]));
      const cell = el("td");
      const bar = el("span", null, "rw-share");
      bar.style.width = `${(rec.shares[k] * 120).toFixed(1)}px`;
      bar.style.background = data.colours[k];
      cell.appendChild(bar);
      cell.appendChild(el("span", `${(rec.shares[k] * 100).toFixed(1)}%`, "rw-share-text"));
      row.appendChild(cell);
    });
    return table;
  }

  function attributeTable(t) {
    const wrap = el("div", null, "rw-explain");
    const table = el("table", null, "rw-table rw-attributes");
    const head = table.createTHead().insertRow();
    for (const h of t.headings) head.appendChild(el("th", h));
    const body = table.createTBody();
    t.rows.forEach((cells, i) => {
      const row = body.insertRow();
      if (i === t.chosen) row.className = "rw-chosen-row";
      for (const c of cells) row.appendChild(el("td", c));
    });
    wrap.appendChild(table);
    for (const n of t.notes) wrap.appendChild(el("p", n, "rw-small"));
    return wrap;
  }

  function select(id) {
    if (selected !== null && groups[selected]) groups[selected].classList.remove("rw-selected");
    selected = id;
    groups[id].classList.add("rw-selected");
    const rec = nodes[id];
    panel.replaceChildren();
    const what = rec.leaf ? `leaf: ${rec.predicted}` : `split on ${rec.title}`;
    panel.appendChild(el("h2", `Node ${id} · ${what}`));

    panel.appendChild(el("h3", "Path of tests"));
    const tests = pathOf(id);
    if (tests.length) {
      const list = el("ol", null, "rw-path");
      for (const t of tests) list.appendChild(el("li", t));
      panel.appendChild(list);
    } else {
      panel.appendChild(el("p", "The root: every training row starts here."));
    }

    const rows = rec.rows === 1 ? "1 row" : `${rec.rows} rows`;
    if (rec.counts) {
      panel.appendChild(el("h3", "Class distribution"));
      panel.appendChild(el("p", `n = ${rec.n} (${rows}); predicts ${rec.predicted}.`));
      panel.appendChild(distribution(rec));
    } else {
      panel.appendChild(el("h3", "Value"));
      panel.appendChild(el("p", `${rec.predicted} (mean of ${rows}, weight ${rec.n}; sd ${rec.sd}).`));
    }
    if (rec.empty) {
      panel.appendChild(el("p", "Empty branch: no training row reached this node, so it takes its " +
        "parent's class distribution (Zhou 2016, §4.1: the third stopping case).", "rw-small"));
    }
    const notes = (rec.notes || []).concat((rec.surrogates || []).map((s) => `surrogate: ${s}`));
    if (notes.length) {
      panel.appendChild(el("h3", "Missing values"));
      const list = el("ul");
      for (const n of notes) list.appendChild(el("li", n));
      panel.appendChild(list);
    }
    if (rec.cut) panel.appendChild(el("p", `${rec.cut} nodes below this one are not drawn.`, "rw-small"));
    if (data.estimates && data.estimates[id]) {
      const [n, e, leaf, sub] = data.estimates[id];
      panel.appendChild(el("h3", "C4.5 error-based estimate"));
      let text = `N = ${n}, E = ${e}: as a leaf E + U(N, E, CF) = ${leaf} errors`;
      if (!rec.leaf) text += `; its subtree ${sub}`;
      panel.appendChild(el("p", text + "."));
    }
    if (data.tables) {
      panel.appendChild(el("h3", "Attribute table (explain)"));
      if (data.tables[id]) panel.appendChild(attributeTable(data.tables[id]));
      else panel.appendChild(el("p", rec.rows ? "Not computed for this node (see the note above)." :
        "No training row reaches this node.", "rw-small"));
    } else if (data.hint) {
      panel.appendChild(el("p", data.hint, "rw-small"));
    }
  }

  function reveal(id) {
    // unfold the ancestors of a node so that it is shown
    for (let n = String(nodes[id].parent); n !== "-1"; n = String(nodes[n].parent)) fold(n, false);
    layout();
  }

  // ------------------------------------------------------------------ wiring
  for (const id in groups) {
    const g = groups[id];
    g.addEventListener("click", (event) => {
      if (event.target.closest(".rw-toggle")) {
        fold(id, !folded.has(id));
        layout();
      } else {
        select(id);
      }
    });
    g.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        select(id);
      } else if (event.key === "-" || event.key === "+") {
        if (nodes[id].kids.length) {
          fold(id, event.key === "-");
          layout();
        }
      }
    });
  }
  root.querySelector(".rw-expand").addEventListener("click", () => {
    folded.clear();
    layout();
  });
  root.querySelector(".rw-collapse").addEventListener("click", () => {
    for (const id in nodes) if (id !== "0" && nodes[id].kids.length) folded.add(id);
    layout();
  });
  root.querySelector(".rw-zoom-in").addEventListener("click", () => {
    zoomBy(1.25, scroller.clientWidth / 2, 0);
  });
  root.querySelector(".rw-zoom-out").addEventListener("click", () => {
    zoomBy(0.8, scroller.clientWidth / 2, 0);
  });
  root.querySelector(".rw-fit").addEventListener("click", () => {
    zoom = fitZoom();
    applyZoom();
    showRoot();
  });
  scroller.addEventListener("wheel", (event) => {
    if (!event.ctrlKey) return;  // a plain wheel scrolls; with Ctrl (or a pinch) it zooms
    event.preventDefault();
    const box = scroller.getBoundingClientRect();
    zoomBy(event.deltaY < 0 ? 1.1 : 1 / 1.1, event.clientX - box.left, event.clientY - box.top);
  }, {passive: false});
  // pan: drag the background of the tree
  let drag = null;
  scroller.addEventListener("pointerdown", (event) => {
    if (event.target.closest("g.rw-node") || event.button !== 0) return;
    drag = {x: event.clientX, y: event.clientY, left: scroller.scrollLeft, top: scroller.scrollTop};
    scroller.classList.add("rw-panning");
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    scroller.scrollLeft = drag.left - (event.clientX - drag.x);
    scroller.scrollTop = drag.top - (event.clientY - drag.y);
  });
  window.addEventListener("pointerup", () => {
    drag = null;
    scroller.classList.remove("rw-panning");
  });
  const legend = root.querySelector("details.rw-legend-box");
  if (legend && root.clientWidth < 640) legend.open = false;  // a narrow screen: the tree first
  root.querySelectorAll("tr[data-node]").forEach((row) => {
    row.addEventListener("click", () => {
      const id = row.dataset.node;
      if (!nodes[id]) return;
      reveal(id);
      select(id);
      groups[id].scrollIntoView({block: "nearest", inline: "center"});
    });
  });

  for (const id in nodes) {
    if (nodes[id].kids.length && nodes[id].depth >= data.openDepth) folded.add(id);
  }
  layout();
  showRoot();
  root.classList.add("rw-ready");
}
