// collsim's web player (app/web/page.h): plays the run or lesson whose data sits in the
// page's <script id="collsim-data"> element, or any other such data handed to
// window.collsimPlayer.load(text). It draws what the view model computed and looks it up by
// time: every frame — steps done, the step shown, what is in flight and queued, the caption —
// is a row of the C++ frame tables (app/web/frames.h), and the only arithmetic left is the
// drawing's (how far along its way a packet is). It derives nothing of the run itself.
// Plain JavaScript, no libraries.
"use strict";
(function () {
  // The shown data (load() replaces it): the page's JSON, its palette and its phases.
  let D = null, PAL = null, PHASES = [], MULTI = false;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);
  function el(name, attrs, parent, text) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  // The first index in sorted `a` (within [from, to)) whose value is > v.
  function upperBound(a, v, from, to) {
    let lo = from === undefined ? 0 : from, hi = to === undefined ? a.length : to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // ---- the data format (docs/web.md): columns of numbers as typed arrays ------------------
  // A column is {"type": "u8" | "i8" | "u16" | "i16" | "u32" | "i32" | "f32" | "f64",
  // "base64": its values' bytes, little-endian}; anything else is left as it is.
  const COLUMN_TYPES = { u8: Uint8Array, i8: Int8Array, u16: Uint16Array, i16: Int16Array, u32: Uint32Array, i32: Int32Array,
                         f32: Float32Array, f64: Float64Array };
  function column(v) {
    const Type = COLUMN_TYPES[v.type];
    if (!Type) throw new Error("collsim page: unknown column type " + v.type);
    let bytes;
    if (Uint8Array.fromBase64) bytes = Uint8Array.fromBase64(v.base64);
    else {
      const s = atob(v.base64), n = s.length;
      bytes = new Uint8Array(n);
      for (let i = 0; i < n; ++i) bytes[i] = s.charCodeAt(i);
    }
    return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
  }
  const isColumn = (v) => v !== null && typeof v === "object" && !Array.isArray(v) && typeof v.base64 === "string";
  // Every column in an object (not inside arrays: the format puts none there), in place.
  function decodeColumns(o) {
    for (const k in o) {
      const v = o[k];
      if (isColumn(v)) o[k] = column(v);
      else if (v !== null && typeof v === "object" && !Array.isArray(v)) decodeColumns(v);
    }
  }

  // ---- a view: one run's data, its columns decoded ---------------------------------------
  function prepareView(V) {
    if (V.ready) return V;
    decodeColumns(V);
    const B = V.buffers;
    V.N = V.transfers.src.length;
    V.clockNames = ["steps", "measured", "predicted"].filter((c) => V.clocks[c]);
    for (const name of V.clockNames) {  // each run's first state: the sum of the differences
      const R = V.clocks[name].frames.runs, start = new Float64Array(R.first.length);
      for (let r = 0, at = 0; r < start.length; ++r) start[r] = at += R.first[r];
      R.start = start;
      const G = V.clocks[name].groups;  // transfers that travel together: one packet, drawn by the first
      V.clocks[name].skip = new Set(G ? G.member : []);
    }
    V.maskLo = B.changes.mask_lo;
    V.maskHi = B.changes.mask_hi;
    V.cellCount = B.cells.begin.length;
    V.eventual = [];  // per cell, its eventual ranks as a list, made when first drawn
    V.stripes = V.total_ranks <= PAL.stripes_up_to;
    V.ready = true;
    return V;
  }
  function eventualRanks(V, c) {
    let out = V.eventual[c];
    if (out) return out;
    const lo = V.buffers.cells.eventual_lo[c], hi = V.buffers.cells.eventual_hi[c];
    out = [];
    for (let q = 0; q < 32; ++q) if ((lo >>> q) & 1) out.push(q);
    for (let q = 0; q < 32; ++q) if ((hi >>> q) & 1) out.push(q + 32);
    return (V.eventual[c] = out);
  }
  const has = (V, i, q) => (q < 32 ? (V.maskLo[i] >>> q) & 1 : q < 64 ? (V.maskHi[i] >>> (q - 32)) & 1 : 0) === 1;
  function stepsDone(c, t) { return upperBound(c.step_done, t); }
  function stepTime(V, c, k) { return k <= 0 || c.step_done.length === 0 ? c.start : c.step_done[Math.min(k, V.steps) - 1]; }

  // ---- the state -------------------------------------------------------------------------
  let phase = 0, V = null, clock = "steps", t = 0, playing = false, speed = 1, rest = 0;
  const phaseView = (k) => (PHASES[k].view >= 0 ? prepareView(D.views[PHASES[k].view]) : null);
  const C = () => V.clocks[clock];

  // ---- frames: the view model's, looked up -----------------------------------------------
  // Each clock's frame table (docs/web.md, "Frames"; app/web/frames.h) holds every state
  // ViewModel::frame takes: the state t falls in is 2j + 1 when t is the event time
  // times[j], else 2j, j the number of event times below t. `runs` holds four columns, one
  // entry per run of states: `first`, its first state as the difference from the run
  // before's (summed once, into `start`), `done` (steps done), `step` (the step shown) and
  // `caption` (an index into the view's caption texts); `counts` two numbers per state: how
  // many entries of the in-flight and of the queued list lead into it.
  function stateAt(F, t) {
    const j = upperBound(F.times, t);
    return j > 0 && F.times[j - 1] === t ? 2 * j - 1 : 2 * j;
  }
  // The last of n records of `stride` numbers in `a`, from `at`, whose first number is <= v.
  function lastAtMost(a, at, stride, n, v) {
    let lo = 0, hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[at + mid * stride] <= v) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }
  // State s's list of transfers (which: 0 in flight, 1 queued): the last whole list stored
  // at or before it, then each later state's entries in turn (x + 1 appends x, -(x + 1)
  // removes it). The list's column: K keys and I items, per key its state, first item and
  // first entry, the items, the entries.
  function listAt(F, which, s) {
    const L = which ? F.queued : F.flying, K = L[0], I = L[1], items0 = 2 + 3 * K, entries0 = items0 + I;
    const key = lastAtMost(L, 2, 3, K, s), k = 2 + 3 * key, itemsEnd = key + 1 < K ? L[k + 4] : I;
    const items = Array.from(L.subarray(items0 + L[k + 1], items0 + itemsEnd)), where = new Map();
    items.forEach((x, i) => where.set(x, i));
    let e = entries0 + L[k + 2];
    for (let u = L[k] + 1; u <= s; ++u)
      for (let n = F.counts[2 * u + which]; n > 0; --n) {
        const v = L[e++];
        if (v > 0) { where.set(v - 1, items.length); items.push(v - 1); } else where.delete(-v - 1);
      }
    return items.filter((x, i) => where.get(x) === i);
  }
  // Where state s's queued packets wait, as the view model placed them (frames.h: per run of
  // states, its spots: transfer, x and y times 10^4).
  function spotsAt(F, s) {
    const S = F.spots, r = lastAtMost(S.first, 0, 1, S.first.length, s), out = [];
    for (let i = S.at[r]; i < S.at[r + 1]; ++i) out.push([S.items[3 * i], [S.items[3 * i + 1] / 1e4, S.items[3 * i + 2] / 1e4]]);
    return out;
  }
  // The view model's Frame at the playhead: steps done, the step shown, in flight (with
  // how far along: drawing), queued (and where each waits), the caption.
  function frame() {
    const c = C(), F = c.frames, R = F.runs, s = stateAt(F, t), r = lastAtMost(R.start, 0, 1, R.start.length, s);
    const flying = listAt(F, 0, s).map((x) => [x, (t - c.begin[x]) / (c.end[x] - c.begin[x])]);
    return { done: R.done[r], step: R.step[r], flying, queued: listAt(F, 1, s), spots: spotsAt(F, s), caption: V.captions.texts[R.caption[r]] };
  }

  // ---- the scene -------------------------------------------------------------------------
  const scene = $("scene");
  let packetsLayer = null;
  function rankColour(r, ranks) { return ranks <= PAL.stripes_up_to ? PAL.ranks[r % 16] : "#8f9bb3"; }
  // The discs' and packets' radii as drawn (unit coordinates): the layout's, grown with the
  // text where the ranks' spacing allows (as the app's scene: a disc 1.75 ems across, a
  // packet 1.15, never wider than 0.42 of the closest pair's distance), so that a projector's
  // zoom enlarges them with the words.
  let drawnR = 0, drawnPR = 0, sceneNote = "";
  function buildScene() {
    scene.innerHTML = "";
    const L = V.layout;
    let R = L.rank_radius, x0, y0, x1, y1;
    const grow = (x, y, m) => { x0 = Math.min(x0, x - m); y0 = Math.min(y0, y - m); x1 = Math.max(x1, x + m); y1 = Math.max(y1, y + m); };
    const fit = () => {
      x0 = y0 = Infinity; x1 = y1 = -Infinity;
      L.nodes.forEach((p, i) => grow(p[0], p[1], i < L.ranks ? R * 1.6 : 0.12));
      for (const b of L.boxes) grow(b.x0, b.y0 - R * 1.2, 0.02), grow(b.x1, b.y1, 0.02);  // (its name above it)
      for (const w of L.link_ways) for (let i = 0; i < w.length; i += 2) grow(w[i], w[i + 1], 0.02 + R - L.rank_radius);
      scene.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
    };
    fit();
    let closest = Infinity;
    if (L.ranks <= 64)
      for (let a = 0; a < L.ranks; ++a)
        for (let b = a + 1; b < L.ranks; ++b) closest = Math.min(closest, Math.hypot(L.nodes[a][0] - L.nodes[b][0], L.nodes[a][1] - L.nodes[b][1]));
    const em = parseFloat(getComputedStyle(document.body).fontSize) || 15;
    const perUnit = () => Math.min(scene.clientWidth / (x1 - x0), scene.clientHeight / (y1 - y0));
    if (perUnit() > 0 && L.ranks <= 64) {
      const wanted = Math.min(0.875 * em / perUnit(), 0.42 * closest);
      if (wanted > R) { R = wanted; fit(); R = Math.max(L.rank_radius, Math.min(0.875 * em / perUnit(), 0.42 * closest)); fit(); }
    }
    drawnR = R;
    drawnPR = Math.max(L.packet_radius, 0.012, perUnit() > 0 ? Math.min(0.575 * em / perUnit(), 0.7 * R) : 0);
    const font = Math.max(R * 0.9, (y1 - y0) * 0.025);
    for (const b of L.boxes) {  // the node's name above its box, off its ranks' discs
      el("rect", { x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0, rx: 0.03, fill: "none", stroke: PAL.grid, "stroke-width": 0.006 }, scene);
      el("text", { x: b.x0 + 0.02, y: b.y0 - font * 0.3, "font-size": font * 0.8, fill: "#969caa" }, scene, b.label);
    }
    for (const [a, b] of L.wires) {  // arranged by both: the topology's wires, dotted, under the pattern
      const p = L.nodes[a], q = L.nodes[b];
      el("line", { class: "wire", x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: PAL.wire, "stroke-width": Math.max(R * 0.08, 0.003), "stroke-dasharray": R * 0.3 + " " + R * 0.3 }, scene);
    }
    L.links.forEach((lk, i) => {
      const w = L.link_ways[i], pts = [];
      for (let j = 0; j < w.length; j += 2) pts.push(w[j] + "," + w[j + 1]);
      const attrs = { class: "link", points: pts.join(" "), fill: "none", stroke: lk[2] > 0 ? PAL.second_tree : "#7d7560", "stroke-width": Math.max(R * 0.12, 0.004) };
      if (lk[2] > 0) attrs["stroke-dasharray"] = R * 0.4 + " " + R * 0.3;
      el("polyline", attrs, scene);
    });
    L.hub_labels.forEach((label, h) => {
      const p = L.nodes[L.ranks + h], ht = Math.max(R * 1.6, 0.07);
      let w = Math.max(R * 3.2, 0.16);
      const box = el("rect", { class: "hub", x: p[0] - w / 2, y: p[1] - ht / 2, width: w, height: ht, rx: 0.02, fill: PAL.hub, stroke: "#969caa", "stroke-width": 0.004 }, scene);
      const text = el("text", { class: "hub-label", x: p[0], y: p[1], "font-size": font * 0.75, fill: "#e6e8ee", "text-anchor": "middle", "dominant-baseline": "central" }, scene, label);
      const tw = text.getBBox ? text.getBBox().width : 0;  // as wide as its name ("PCIe switch")
      if (tw + font * 0.6 > w) { w = tw + font * 0.6; box.setAttribute("x", p[0] - w / 2); box.setAttribute("width", w); }
    });
    for (let r = 0; r < L.ranks; ++r) {
      const p = L.nodes[r], g = el("g", { class: "rank", "data-rank": r }, scene);
      if (L.servers[r]) el("rect", { x: p[0] - R, y: p[1] - R, width: 2 * R, height: 2 * R, rx: R * 0.2, fill: rankColour(r, L.ranks) }, g);
      else el("circle", { cx: p[0], cy: p[1], r: R, fill: rankColour(r, L.ranks) }, g);
      el("text", { x: p[0], y: p[1], "font-size": R * 0.95, fill: "#141418", "text-anchor": "middle", "dominant-baseline": "central" }, g, String(r));
      el("title", {}, g, "rank " + r + (L.servers[r] ? " (server)" : ""));
    }
    packetsLayer = el("g", { id: "packets" }, scene);
    sceneNote = "arranged by " + L.arrangement + ". A filled disc with +k adds chunk k into the receiver; an outlined square with k copies it.";
    $("scene-note").textContent = sceneNote;
  }
  function wayPoint(w, progress) {
    const pts = V.transfers.ways[w], n = pts.length / 2 - 1, at = Math.min(Math.max(progress, 0), 1) * n, i = Math.min(Math.floor(at), n - 1), f = at - i;
    return [pts[2 * i] + (pts[2 * i + 2] - pts[2 * i]) * f, pts[2 * i + 1] + (pts[2 * i + 3] - pts[2 * i + 1]) * f];
  }
  const kMaxPackets = 3000;
  function drawPackets(f) {
    const T = V.transfers, PR = drawnPR || Math.max(V.layout.packet_radius, 0.012), parts = [];
    const CL = C(), skip = CL.skip, groupLabels = CL.groups ? CL.groups.labels : {};
    // One chunk: a disc (reduce) or a square (copy); blocks travelling together: a pill as
    // wide as their label ("1,3,5,7", the view model's packet_label).
    const packet = (x, p, faded) => {
      const reduce = T.reduce[x] === 1, several = groupLabels[x] !== undefined;
      const label = several ? groupLabels[x] : (reduce ? "+" : "") + T.chunk[x];
      const W = several ? Math.max(PR, label.length * PR * 0.3 + PR * 0.45) : PR;
      let s = '<g class="packet" data-transfer="' + x + '" data-queued="' + (faded ? 1 : 0) + '"' + (several ? ' data-label="' + label + '"' : "") + (faded ? ' opacity="0.45"' : "") + ">";
      s += reduce && !several ? '<circle cx="' + p[0] + '" cy="' + p[1] + '" r="' + PR + '" fill="' + PAL.packet + '"/>'
         : reduce ? '<rect x="' + (p[0] - W) + '" y="' + (p[1] - PR) + '" width="' + 2 * W + '" height="' + 2 * PR + '" rx="' + PR + '" fill="' + PAL.packet + '"/>'
                  : '<rect x="' + (p[0] - W) + '" y="' + (p[1] - PR) + '" width="' + 2 * W + '" height="' + 2 * PR + '" fill="#24272f" stroke="' + PAL.packet + '" stroke-width="' + PR * 0.25 + '"/>';
      s += '<text x="' + p[0] + '" y="' + p[1] + '" font-size="' + PR * 1.05 + '" text-anchor="middle" dominant-baseline="central" fill="' + (reduce ? PAL.packet_ink : PAL.packet) + '">' + label + "</text></g>";
      parts.push(s);
    };
    // The view model's rule (place_in_flight): a packet closer than two radii to one drawn that
    // leaves the same sender or heads for the same receiver is drawn as that one (under
    // --latency-rule delay a port's next message leaves before the one before has arrived).
    const bySrc = new Map(), byDst = new Map();
    const near = (m, k, p) => (m.get(k) || []).some(q => Math.hypot(q[0] - p[0], q[1] - p[1]) < 2 * PR);
    const keep = (m, k, p) => { if (!m.has(k)) m.set(k, []); m.get(k).push(p); };
    for (const [x, progress] of f.flying.slice(0, kMaxPackets)) {
      if (T.way[x] < 0 || skip.has(x)) continue;
      const p = wayPoint(T.way[x], progress);
      if (near(bySrc, T.src[x], p) || near(byDst, T.dst[x], p)) continue;
      keep(bySrc, T.src[x], p);
      keep(byDst, T.dst[x], p);
      packet(x, p, false);
    }
    // Queued ones wait where the view model put them (beside their sender, on its free side).
    for (const [x, p] of f.spots.slice(0, kMaxPackets)) if (!skip.has(x)) packet(x, p, true);
    packetsLayer.innerHTML = parts.join("");
  }
  // A compute phase: each rank's duration as a bar (the app's compute card).
  function drawComputeCard(p) {
    scene.innerHTML = "";
    const us = p.compute_us || [], most = Math.max(...us, 1e-9), rows = us.length;
    scene.setAttribute("viewBox", "0 0 100 " + (rows * 8 + 10));
    el("text", { x: 1, y: 5, "font-size": 4, fill: "#e6e8ee" }, scene, "compute: " + p.name);
    us.forEach((v, r) => {
      el("text", { x: 1, y: 12 + r * 8, "font-size": 3.2, fill: "#e6e8ee" }, scene, "rank " + r);
      el("rect", { class: "compute-bar", "data-rank": r, x: 14, y: 8.5 + r * 8, width: Math.max((v / most) * 70, 0.3), height: 5, fill: "#5b7bc0" }, scene);
      el("text", { x: 16 + (v / most) * 70, y: 12 + r * 8, "font-size": 3, fill: "#969caa" }, scene, v.toFixed(3) + " µs");
    });
    $("scene-note").textContent = "a compute phase: no transfers; each rank computes for as long as its bar (predicted, µs).";
  }

  // ---- the buffers -------------------------------------------------------------------------
  const buffers = $("buffers");
  let cellNodes = [], cellState = null;
  const bufferName = { input: "in", output: "out", scratch: "scr" };
  // Three ways to draw the cells, by their number:
  // - up to kCanvasCells, an SVG group per cell (`.cell`, with its data attributes);
  // - up to kDomCells, painted on a canvas (an SVG of thousands of cells costs Chromium tens
  //   of milliseconds a frame to restyle and repaint), only the cells whose state changed; the
  //   `.cell` elements stay, hidden and without children, with their data attributes;
  // - beyond, no element per cell at all (`big`): the canvas shows every row as pixel
  //   columns, each the mean share of its cells' ranks they hold (one shade), and a seek
  //   costs one binary search per pixel column (see columnEvents).
  const kCanvasCells = 1500, kDomCells = 20000;
  let bctx = null, big = null;
  function buildBuffers() {
    buffers.innerHTML = "";
    cellNodes = [];
    big = null;
    const B = V.buffers, n = V.cellCount;
    cellState = new Int32Array(n).fill(-2);
    let rows = B.rows.filter((row) => V.total_ranks <= 8 || !row.optional);
    const label = 86;
    let rowH = 22, gap = 4;
    if (stage) {  // on the stage every rank's output row stays in view: the input rows go when they do not fit, then the rows get thinner
      const panel = $("buffers-panel"), room = panel.clientHeight - (buffers.getBoundingClientRect().top - panel.getBoundingClientRect().top) - 8;
      if (rows.length * (rowH + gap) + 4 > room) rows = rows.filter((row) => !row.optional);
      if (rows.length * (rowH + gap) + 4 > room) gap = 2, rowH = Math.max(12, Math.floor((room - 4) / rows.length) - gap);
    }
    const width = Math.max(buffers.clientWidth || $("buffers-panel").clientWidth - 14 || 400, stage ? 200 : 280);
    const height = rows.length * (rowH + gap) + 4, span = width - label - 4;
    V.canvasCells = n > kCanvasCells;
    const bigCells = n > kDomCells;
    let canvas = $("buffers-canvas");
    if (V.canvasCells && !canvas) {
      canvas = document.createElement("canvas");
      canvas.id = "buffers-canvas";
      buffers.after(canvas);
    }
    if (canvas) canvas.hidden = !V.canvasCells;
    buffers.style.display = V.canvasCells ? "none" : "";
    buffers.setAttribute("viewBox", "0 0 " + width + " " + height);
    buffers.setAttribute("height", height);
    bctx = null;
    if (V.canvasCells) {
      const dpr = window.devicePixelRatio || 1;
      canvas.width = width * dpr; canvas.height = height * dpr;
      canvas.style.width = width + "px"; canvas.style.height = height + "px";
      bctx = canvas.getContext("2d");
      bctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      bctx.clearRect(0, 0, width, height);
      bctx.font = "13px system-ui, sans-serif";
      bctx.textBaseline = "middle";
    }
    const X = B.cells.x0, X1 = B.cells.x1, pieces = B.cells.pieces;
    if (bigCells) {
      // Pixel columns: per row, `span` of them (the number of cells in each), painted as one
      // pixel each of an image of px x rows pixels, drawn stretched to the rows' height.
      const px = Math.max(Math.floor(span), 1), columns = rows.length * px, off = document.createElement("canvas");
      off.width = px; off.height = Math.max(rows.length, 1);
      const image = new ImageData(px, Math.max(rows.length, 1));
      big = { px, label, rowH, gap, rows: rows.length, colCount: new Uint32Array(columns), cellCol: new Int32Array(n).fill(-1), cellCols: new Uint16Array(n),
              image, pixels: new Uint32Array(image.data.buffer), off, offCtx: off.getContext("2d"), empty: rgba(PAL.empty), ramp: PAL.ramp.map(rgba) };
    }
    rows.forEach((row, k) => {
      const y = 2 + k * (rowH + gap), name = "rank " + row.rank + " " + bufferName[row.buffer];
      if (bctx) {
        bctx.fillStyle = "#e6e8ee"; bctx.fillText(name, 4, y + rowH / 2);
        if (V.stripes) { bctx.fillStyle = PAL.ranks[row.rank % 16]; bctx.fillRect(label - 8, y + 2, 4, rowH - 4); }
      } else {
        el("text", { x: 4, y: y + rowH / 2, "font-size": Math.min(13, rowH - 2), fill: "#e6e8ee", "dominant-baseline": "central" }, buffers, name);
        if (V.stripes) el("rect", { x: label - 8, y: y + 2, width: 4, height: rowH - 4, fill: PAL.ranks[row.rank % 16] }, buffers);
      }
      if (big) {
        // A cell covers the pixel columns its [x0, x1) reaches.
        const base = k * big.px;
        for (let c = row.first; c < row.first + row.count; ++c) {
          const a = Math.min(Math.floor((X[c] / pieces) * big.px), big.px - 1), b = Math.min(Math.max(Math.ceil((X1[c] / pieces) * big.px), a + 1), big.px);
          big.cellCol[c] = base + a, big.cellCols[c] = b - a;
          for (let p = a; p < b; ++p) ++big.colCount[base + p];
        }
        return;
      }
      for (let c = row.first; c < row.first + row.count; ++c) {
        const x = label + (X[c] / pieces) * span, w = Math.max(((X1[c] - X[c]) / pieces) * span - 1, 0.5);
        const g = el("g", { class: "cell", "data-rank": row.rank, "data-buffer": row.buffer, "data-cell": c - row.first, "data-begin": B.cells.begin[c], "data-end": B.cells.end[c], "data-index": c }, buffers);
        cellNodes[c] = { g, x, y, w, h: rowH };
      }
    });
    $("legend").textContent = $("legend").title = big ? "shade: the share of its ranks a cell holds (dark: none, light: all); " + n + " cells, " +
                                    "each pixel column the mean of the cells in it"
                            : V.stripes ? "a stripe per rank a cell will hold, coloured once its contribution has arrived; k/n: ranks it holds of those it will hold"
                            : "shade: the share of its ranks a cell holds (dark: none, light: all)";
  }
  // A cell's elements are made once (its rank slots, or one shade; its "k/n") and only their
  // attributes change with the playhead, so that scrubbing 4 000 cells stays cheap.
  const slotsOf = (c) => { if (!V.stripes) return [-1]; const q = eventualRanks(V, c); return q.length ? q : [-1]; };
  function makeCell(node, c) {
    const slots = slotsOf(c);
    const sw = node.w / slots.length;
    node.slots = slots.map((q, s) => ({ q, rect: el("rect", { x: node.x + s * sw, y: node.y, width: sw + 0.2, height: node.h, fill: PAL.empty }, node.g) }));
    if (node.w <= 30) return;  // too narrow for "k/n": no element to keep up to date
    node.label = el("text", { x: node.x + node.w / 2, y: node.y + node.h / 2, "font-size": 11, "text-anchor": "middle", "dominant-baseline": "central",
                              fill: "#141418", stroke: "#f0f0f0", "stroke-width": 2.5, "paint-order": "stroke" }, node.g, "");
  }
  // The fill of each of a cell's slots (its eventual ranks, or one shade).
  function cellFills(c, i, written, held, holds, target) {
    return slotsOf(c).map((q) => !written ? PAL.empty
                          : !V.stripes ? PAL.ramp[Math.round((holds / Math.max(target, 1)) * (PAL.ramp.length - 1))]
                          : q < 0 ? PAL.ranks[(held[0] || 0) % 16]
                          : has(V, i, q) ? PAL.ranks[q % 16] : PAL.missing);
  }
  function drawCell(c, i) {
    const node = cellNodes[c], B = V.buffers;
    const written = i >= 0 && B.changes.written[i] === 1;
    const holds = written ? B.changes.holds[i] : 0, target = B.cells.target[c];
    const held = [];
    if (written) for (let q = 0; q < 64; ++q) if (has(V, i, q)) held.push(q);
    const holdsText = held.join(" ");
    if (node.holds !== holdsText) node.g.setAttribute("data-holds", (node.holds = holdsText));
    const fills = cellFills(c, i, written, held, holds, target), sw = node.w / fills.length;
    if (bctx) {
      fills.forEach((fill, s) => { bctx.fillStyle = fill; bctx.fillRect(node.x + s * sw, node.y, sw + 0.2, node.h); });
      if (written && node.w > 30) {
        bctx.font = "11px system-ui, sans-serif"; bctx.textAlign = "center";
        bctx.lineWidth = 2.5; bctx.strokeStyle = "#f0f0f0"; bctx.strokeText(holds + "/" + target, node.x + node.w / 2, node.y + node.h / 2);
        bctx.fillStyle = "#141418"; bctx.fillText(holds + "/" + target, node.x + node.w / 2, node.y + node.h / 2);
        bctx.textAlign = "start";
      }
      return;
    }
    if (!node.slots) makeCell(node, c);
    node.slots.forEach((slot, s) => { if (slot.fill !== fills[s]) slot.rect.setAttribute("fill", (slot.fill = fills[s])); });
    const label = written ? holds + "/" + target : "";
    if (node.label && node.labelText !== label) node.label.textContent = (node.labelText = label);
  }
  // The change cell c shows at t: the last of its changes whose key is <= t, or -1.
  function changeAt(keys, c) {
    const B = V.buffers, first = B.cells.first[c], i = upperBound(keys, t, first, first + B.cells.count[c]) - 1;
    return i >= first ? i : -1;
  }
  function drawBuffers() {
    if (big) return drawBigBuffers();
    const keys = C().keys;
    for (let c = 0; c < cellNodes.length; ++c) {
      if (!cellNodes[c]) continue;
      const change = changeAt(keys, c);
      if (change !== cellState[c]) cellState[c] = change, drawCell(c, change);
    }
  }

  // Every cell drawn afresh at the next render (another clock, another phase).
  function resetCells() {
    cellState.fill(-2);
  }
  // "#rrggbb" as an ImageData pixel (little-endian RGBA).
  function rgba(hex) {
    const v = parseInt(hex.slice(1), 16);
    return ((0xff << 24) | ((v & 0xff) << 16) | (v & 0xff00) | ((v >> 16) & 0xff)) >>> 0;
  }

  // ---- many cells: pixel columns with their own history --------------------------------------
  // Per clock, every pixel column's events: the changes of the cells in it in time order, with
  // the number of its cells written and the sum of their shares (1/65536ths: exact integers)
  // after each. A seek is one binary search per pixel column: its cost follows the pixels
  // shown, not the cells or the changes.
  function columnEvents(pc) {
    if (pc.columns && pc.columns.big === big) return pc.columns;
    const B = V.buffers, ch = B.changes, first = B.cells.first, count = B.cells.count, n = V.cellCount, keys = pc.keys;
    if (!V.delta) {
      // Per change, what it adds to its column: +1 written and its share, less its cell's previous state's.
      V.deltaW = new Int8Array(keys.length);
      V.deltaS = new Int32Array(keys.length);
      for (let c = 0; c < n; ++c) {
        const scale = 65536 / Math.max(B.cells.target[c], 1);
        let w = 0, s = 0;
        for (let i = first[c], e = i + count[c]; i < e; ++i) {
          const wi = ch.written[i] === 1 ? 1 : 0, si = wi ? Math.round(ch.holds[i] * scale) : 0;
          V.deltaW[i] = wi - w, V.deltaS[i] = si - s;
          w = wi, s = si;
        }
      }
      V.delta = true;
    }
    const columns = big.colCount.length, start = new Uint32Array(columns + 1);
    for (let c = 0; c < n; ++c)
      for (let p = big.cellCol[c], e = p + big.cellCols[c]; p >= 0 && p < e; ++p) start[p + 1] += count[c];
    for (let p = 0; p < columns; ++p) start[p + 1] += start[p];
    const events = start[columns], change = new Uint32Array(events), at = start.slice(0, columns);
    for (let c = 0; c < n; ++c)
      for (let p = big.cellCol[c], e = p + big.cellCols[c]; p >= 0 && p < e; ++p)
        for (let i = first[c], end = i + count[c]; i < end; ++i) change[at[p]++] = i;
    const byKey = (a, b) => keys[a] - keys[b];
    const key = new Float64Array(events), written = new Int32Array(events), sum = new Float64Array(events);
    for (let p = 0; p < columns; ++p) {
      const a = start[p], b = start[p + 1];
      change.subarray(a, b).sort(byKey);
      let w = 0, s = 0;
      for (let j = a; j < b; ++j) {
        const i = change[j];
        key[j] = keys[i], w += V.deltaW[i], s += V.deltaS[i], written[j] = w, sum[j] = s;
      }
    }
    return (pc.columns = { big, start, key, written, sum });
  }
  // A pixel column's shade: the mean share over its cells (an empty one counts 0); the empty
  // colour when none is written.
  function drawBigBuffers() {
    const ev = columnEvents(C()), top = big.ramp.length - 1, columns = big.colCount.length;
    let changed = false;
    for (let p = 0; p < columns; ++p) {
      const j = upperBound(ev.key, t, ev.start[p], ev.start[p + 1]) - 1;
      const pixel = j < ev.start[p] || ev.written[j] === 0 ? big.empty : big.ramp[Math.round((ev.sum[j] / (big.colCount[p] * 65536)) * top)];
      if (big.pixels[p] !== pixel) big.pixels[p] = pixel, changed = true;
    }
    if (!changed) return;
    big.offCtx.putImageData(big.image, 0, 0);
    bctx.imageSmoothingEnabled = false;
    for (let k = 0; k < big.rows; ++k)
      bctx.drawImage(big.off, 0, k, big.px, 1, big.label, 2 + k * (big.rowH + big.gap), big.px, big.rowH);
  }

  // ---- the timeline ------------------------------------------------------------------------
  const tl = $("timeline"), head = $("timeline-head");
  const laneH = 18, labelW = 70;
  function timelineRange() { const c = C(); return [c.start, Math.max(c.finish, c.start + 1e-9)]; }
  function xOf(v, width) { const [a, b] = timelineRange(); return labelW + ((v - a) / (b - a)) * (width - labelW - 4); }
  function drawTimeline() {
    if (!V) return;
    const T = V.transfers, ranks = Math.min(V.total_ranks, 64), dpr = window.devicePixelRatio || 1;
    const width = Math.max(tl.clientWidth || 600, 300), height = ranks * laneH + 4;
    for (const cv of [tl, head]) { cv.width = width * dpr; cv.height = height * dpr; cv.style.height = height + "px"; }
    const g = tl.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = "11px system-ui, sans-serif";
    const c = C();
    for (let r = 0; r < ranks; ++r) { g.fillStyle = "#e6e8ee"; g.fillText("rank " + r, 4, r * laneH + 13); }
    // A bar per transfer: the sender's lane on top, the receiver's below; bars under a
    // pixel wide in one lane fold into the one before them, and bars under two pixels wide
    // that follow on one another (of one kind) are drawn as one run.
    const [t0, t1] = timelineRange(), scale = (width - labelW - 4) / (t1 - t0);
    const last = new Float64Array(ranks * 2).fill(-1), runB = new Float64Array(ranks * 2), runE = new Float64Array(ranks * 2).fill(-1);
    const runReduce = new Uint8Array(ranks * 2);
    const flush = (lane) => {
      if (runE[lane] < 0) return;
      const b = runB[lane], e = runE[lane], y = (lane >> 1) * laneH + 2 + (lane & 1) * 8;
      g.fillStyle = runReduce[lane] ? PAL.packet : "#24272f";
      g.fillRect(b, y, e - b, 7);
      if (!runReduce[lane]) { g.strokeStyle = PAL.packet; g.lineWidth = 1; g.strokeRect(b + 0.5, y + 0.5, e - b - 1, 6); }
      runE[lane] = -1;
    };
    for (let x = 0; x < V.N; ++x) {
      if (T.src[x] === T.dst[x]) continue;
      const b = labelW + (c.begin[x] - t0) * scale, e = Math.max(labelW + (c.end[x] - t0) * scale, b + 1), reduce = T.reduce[x] ? 1 : 0;
      for (let half = 0; half < 2; ++half) {
        const r = half ? T.dst[x] : T.src[x];
        if (r >= ranks) continue;
        const lane = r * 2 + half;
        if (e <= last[lane] + 0.5) continue;
        last[lane] = e;
        if (runE[lane] >= 0 && e - b < 2 && b <= runE[lane] + 0.5 && runReduce[lane] === reduce) { runE[lane] = Math.max(runE[lane], e); continue; }
        flush(lane);
        runB[lane] = b, runE[lane] = e, runReduce[lane] = reduce;
        if (e - b >= 2) flush(lane);
      }
    }
    for (let lane = 0; lane < ranks * 2; ++lane) flush(lane);
    $("timeline-note").textContent = "a lane per rank: sends above, receives below; filled: reduce, outlined: copy (" + clock + " clock)" + (V.total_ranks > 64 ? "; the first 64 ranks" : "");
  }
  function drawPlayhead() {
    if (!V) return;
    const dpr = window.devicePixelRatio || 1, width = head.width / dpr, g = head.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, head.height);
    const x = xOf(t, width);
    g.strokeStyle = "#ff5a5a"; g.lineWidth = 2;
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, head.height); g.stroke();
  }
  tl.addEventListener("click", (ev) => {
    if (!V) return;
    const rect = tl.getBoundingClientRect(), [a, b] = timelineRange();
    pause(); seek(a + ((ev.clientX - rect.left - labelW) / (rect.width - labelW - 4)) * (b - a));
  });

  // ---- the program (a lesson of several phases) --------------------------------------------
  const program = $("program"), kProgramLabelW = 78;  // the label column: "r0" and the lanes' names
  function buildProgram() {
    const list = $("phases");
    list.innerHTML = "";
    $("program-panel").hidden = !MULTI;
    if (!MULTI) return;
    PHASES.forEach((p, k) => {
      const li = document.createElement("li");
      li.className = "phase " + p.kind;
      li.dataset.phase = k + 1;
      li.innerHTML = "";
      li.appendChild(document.createTextNode(p.name + " "));
      const small = document.createElement("small");
      small.textContent = p.summary + " · " + p.begin_us.toFixed(2) + " → " + p.end_us.toFixed(2) + " µs";
      li.appendChild(small);
      li.onclick = () => { pause(); enterPhase(k, false); };
      list.appendChild(li);
    });
  }
  program.addEventListener("click", (ev) => {
    if (!MULTI) return;
    const rect = program.getBoundingClientRect(), at = ((ev.clientX - rect.left - kProgramLabelW) / (rect.width - kProgramLabelW - 4)) * D.program.total_us;
    const k = PHASES.findIndex((p) => p.begin_us <= at && at <= p.end_us);
    if (k >= 0) { pause(); enterPhase(k, false); }
  });
  // A row per rank: a lane per stream (D.program.lanes: compute, comm, then the lesson's
  // others), named in the label column, a bar per phase on its stream's lane, and under them,
  // when the phases allocate memory, a band plotting the memory the rank holds (its top: the
  // largest peak of any rank, written beside it).
  function drawProgram() {
    if (!MULTI) return;
    const dpr = window.devicePixelRatio || 1, width = Math.max(program.clientWidth || 400, 280), ranks = Math.min(D.program.ranks, 32);
    const lanes = (D.program.lanes || []).length || 2, memory = D.program.memory || { ranks: [], top_bytes: 0 };
    const bands = lanes + (memory.top_bytes > 0 ? 3 : 0);  // the memory band is three lanes high
    // Lanes of 12 px while the whole fits in about 380 px (the canvas takes the height it needs).
    const lane = Math.max(Math.min(376 / (ranks * (bands + 0.5)), 12), 3);
    const rowH = lane * bands + lane * 0.5, height = ranks * rowH + 4;
    program.width = width * dpr; program.height = height * dpr; program.style.height = height + "px";
    const g = program.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    const named = lane >= 9;  // room for a lane's name
    g.font = (named ? Math.min(lane - 1, 11) : 10) + "px system-ui, sans-serif";
    const x = (us) => kProgramLabelW + (us / Math.max(D.program.total_us, 1e-9)) * (width - kProgramLabelW - 4);
    for (let r = 0; r < ranks; ++r) {
      const top = r * rowH;
      g.fillStyle = "#d8dce6"; g.textAlign = "left";
      g.fillText(named ? "r" + r : "rank " + r, 2, top + (named ? lane * 0.85 : Math.min(rowH, lane * 2) * 0.8));
      if (!named) continue;
      g.fillStyle = "#969caa"; g.textAlign = "right";
      (D.program.lanes || []).forEach((l, i) => g.fillText(l.label, kProgramLabelW - 4, top + i * lane + lane * 0.85));
      if (memory.top_bytes > 0) { g.fillStyle = "#ebebf5"; g.fillText(memory.top_text, kProgramLabelW - 4, top + lanes * lane + lane * 0.9); }
    }
    g.textAlign = "left";
    PHASES.forEach((p, k) => {
      for (let r = 0; r < ranks; ++r) {
        const b = p.rank_begin_us[r], e = p.rank_end_us[r];
        if (b === null || b === undefined) continue;
        g.fillStyle = k === phase ? "#e8c547" : p.kind === "compute" ? "#5b7bc0" : "#3fa37a";
        g.fillRect(x(b), r * rowH + (p.lane || 0) * lane + 1, Math.max(x(e) - x(b), 1), lane - 1);
      }
    });
    if (memory.top_bytes > 0)
      for (let r = 0; r < ranks; ++r) {
        const top = r * rowH + lanes * lane + 1, h = lane * 3 - 2, points = memory.ranks[r] || [];
        g.fillStyle = "#1e2129"; g.fillRect(kProgramLabelW, top, width - kProgramLabelW - 4, h);
        if (!points.length) continue;
        const y = (bytes) => top + h - (bytes / memory.top_bytes) * h;
        g.strokeStyle = "#ebebf5"; g.lineWidth = 1.5; g.beginPath(); g.moveTo(kProgramLabelW, top + h);
        let yy = top + h;
        for (const [us, bytes] of points) { g.lineTo(x(us), yy); yy = y(bytes); g.lineTo(x(us), yy); }
        g.lineTo(width - 4, yy); g.stroke();
      }
    for (const li of document.querySelectorAll("#phases li")) li.classList.toggle("shown", Number(li.dataset.phase) === phase + 1);
    const shown = document.querySelector("#phases li.shown");
    // The list scrolls to the phase shown; the window does not (on the stage the list is below it).
    if (shown) {
      const list = $("phases"), lr = list.getBoundingClientRect(), sr = shown.getBoundingClientRect();
      if (sr.top < lr.top || sr.bottom > lr.bottom) list.scrollTop += sr.top - lr.top - (lr.height - sr.height) / 2;
    }
  }

  // ---- moving through the phases -----------------------------------------------------------
  function enterPhase(k, atEnd) {
    const next = phaseView(k);
    const changed = next !== V;
    phase = k;
    V = next;
    rest = 0;
    if (V) {
      const wanted = PHASES[k].clock || (k === 0 ? D.clock : clock);
      if (V.clockNames.includes(wanted)) clock = wanted;
      else if (!V.clockNames.includes(clock)) clock = "steps";
      fillClocks();
      if (changed || !scene.querySelector("#packets")) { buildScene(); buildBuffers(); }
      resetCells();
      $("buffers-panel").hidden = false;
      $("timeline-panel").hidden = false;
      drawTimeline();
      t = atEnd ? C().finish : C().start;
    } else {
      drawComputeCard(PHASES[k]);
      $("buffers-panel").hidden = true;
      $("timeline-panel").hidden = true;
      t = 0;
    }
    showNumbers(V);
    drawProgram();
    render();
  }
  function fillClocks() {
    const select = $("clock");
    select.innerHTML = "";
    for (const name of V.clockNames) { const o = document.createElement("option"); o.value = o.textContent = name; select.appendChild(o); }
    select.value = clock;
  }

  // ---- the transport -------------------------------------------------------------------------
  function fmtTime(ns) {
    if (clock === "steps") return "step " + ns.toFixed(2) + " / " + V.steps;
    const us = ns / 1000;
    return us >= 1000 ? (us / 1000).toFixed(3) + " ms" : us.toFixed(3) + " µs";
  }
  function render() {
    const ph = $("playhead"), p = PHASES[phase], words = p.narration || null;
    ph.dataset.phase = String(phase + 1);
    ph.dataset.phases = String(PHASES.length);
    const where = MULTI ? "Phase " + (phase + 1) + "/" + PHASES.length + " · " : "";
    $("phase-caption").textContent = MULTI ? "Phase " + (phase + 1) + ": " + p.name + ". " + (words ? words.phase : "") : (words && words.phase) || "";
    if (!V) {
      ph.textContent = where + "compute";
      Object.assign(ph.dataset, { t: "0", step: "0", done: "0", clock: "", flying: "0", queued: "0" });
      $("caption").textContent = "Compute: " + p.name;
      $("file-caption").textContent = words ? words.steps[0] || "" : "";
      $("position").textContent = "";
      $("scrub").disabled = $("clock").disabled = true;
      return;
    }
    $("scrub").disabled = $("clock").disabled = false;
    // On the stage the phase's caption is hidden: the scene's note names the phase.
    const note = (stage && MULTI ? "Phase " + (phase + 1) + "/" + PHASES.length + ": " + p.name + " · " : "") + sceneNote;
    if ($("scene-note").textContent !== note) $("scene-note").textContent = note;
    const f = frame(), c = C();
    drawPackets(f);
    drawBuffers();
    drawPlayhead();
    ph.textContent = where + "Step " + f.step + "/" + V.steps;
    Object.assign(ph.dataset, { t: String(t), step: String(f.step), done: String(f.done), clock, flying: String(f.flying.length), queued: String(f.queued.length) });
    $("caption").textContent = (clock === "steps" ? "" : "t = " + fmtTime(t) + "  ") + f.caption;
    const file = words ? words.steps : V.captions.file || [];
    $("file-caption").textContent = file[f.step] || "";
    const scrub = $("scrub");
    scrub.min = c.start; scrub.max = Math.max(c.finish, c.start + 1e-9); scrub.value = t;
    $("position").textContent = clock === "steps" ? fmtTime(t) : fmtTime(t) + " / " + fmtTime(c.finish);
  }
  function seek(v) { if (!V) return; const c = C(); t = Math.min(Math.max(v, c.start), c.finish); render(); }
  function stepForward() {
    pause();
    if (!V || t >= C().finish) { if (phase + 1 < PHASES.length) enterPhase(phase + 1, false); return; }
    const c = C();
    seek(stepTime(V, c, Math.min(upperBound(c.step_done, t) + 1, V.steps)));
  }
  function stepBack() {
    pause();
    if (!V || t <= C().start) { if (phase > 0) enterPhase(phase - 1, true); return; }
    const c = C();
    let k = upperBound(c.step_done, t);
    while (k > 0 && stepTime(V, c, k) >= t) --k;
    seek(stepTime(V, c, k));
  }
  // Playing goes on through the phases: at a phase's end the playhead rests half a second,
  // a compute phase shows for one second (both shorter at higher speeds), as in the app.
  let lastFrame = 0;
  function tick(now) {
    if (!playing) return;
    const dt = lastFrame ? Math.min((now - lastFrame) / 1000, 0.1) : 0;
    lastFrame = now;
    if (!V || t >= C().finish) {
      rest += dt * speed;
      if (rest >= (V ? 0.5 : 1.0)) {
        if (phase + 1 >= PHASES.length) return pause();
        enterPhase(phase + 1, false);
      }
    } else {
      const c = C(), perSecond = clock === "steps" ? 1 : (c.finish - c.start) / Math.max(V.steps, 1);
      t = Math.min(t + dt * perSecond * speed, c.finish);
      render();
    }
    requestAnimationFrame(tick);
  }
  function play() {
    if (V && t >= C().finish && phase + 1 >= PHASES.length) {
      if (MULTI) enterPhase(0, false); else t = C().start;
    }
    playing = true; lastFrame = 0; rest = 0;
    $("play-icon").setAttribute("d", "M6 5h4v14H6zM14 5h4v14h-4z");
    requestAnimationFrame(tick);
  }
  function pause() { playing = false; $("play-icon").setAttribute("d", "M7 5v14l12-7z"); }
  function toggle() { playing ? pause() : play(); }
  // Switching the clock keeps the step position: k steps done and the same share of step k + 1.
  function setClock(name) {
    if (!V || !V.clockNames.includes(name)) return;
    const a = C(), b = V.clocks[name];
    const k = stepsDone(a, t), t0 = stepTime(V, a, k), t1 = stepTime(V, a, k + 1);
    const share = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    clock = name;
    const u0 = stepTime(V, b, k), u1 = stepTime(V, b, k + 1);
    t = k >= V.steps ? b.finish : u0 + share * (u1 - u0);
    resetCells();
    $("clock").value = name;
    drawTimeline();
    render();
  }

  $("first").onclick = () => { pause(); seek(-Infinity); };
  $("last").onclick = () => { pause(); seek(Infinity); };
  $("back").onclick = stepBack;
  $("forward").onclick = stepForward;
  $("play").onclick = toggle;
  $("scrub").addEventListener("input", (ev) => { pause(); seek(parseFloat(ev.target.value)); });
  $("speed").addEventListener("change", (ev) => { speed = parseFloat(ev.target.value); });
  $("clock").addEventListener("change", (ev) => setClock(ev.target.value));
  document.addEventListener("keydown", (ev) => {
    if (ev.target && ((ev.target.tagName === "INPUT" && ev.target.type === "text") || ev.target.tagName === "SELECT")) return;
    const keys = { " ": toggle, ArrowRight: stepForward, PageDown: stepForward, ArrowLeft: stepBack, PageUp: stepBack,
                   Home: () => { pause(); seek(-Infinity); }, End: () => { pause(); seek(Infinity); } };
    if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
  });
  // Touch: a swipe across the scene steps (left: forward, right: back).
  let touchX = null;
  scene.addEventListener("touchstart", (ev) => { touchX = ev.touches[0].clientX; }, { passive: true });
  scene.addEventListener("touchend", (ev) => {
    if (touchX === null) return;
    const dx = ev.changedTouches[0].clientX - touchX;
    touchX = null;
    if (Math.abs(dx) > 40) (dx < 0 ? stepForward : stepBack)();
  });

  // ---- busbw against size: collsim's own SVG (app/views/bench_plot.h), folded ---------------
  function buildSizeCurve() {
    const curve = D.size_curve;
    $("size-curve-panel").hidden = !curve;
    if (!curve) return;
    $("size-curve-caption").textContent = curve.caption;
    $("size-curve").innerHTML = curve.svg;
    const svg = $("size-curve").querySelector("svg");
    if (svg) {
      svg.removeAttribute("width");
      svg.removeAttribute("height");
      svg.style.width = "100%";
      svg.style.height = "auto";
      svg.style.maxHeight = "90vh";  // the whole slide on screen, on a wide monitor too
    }
  }

  // ---- the questions -------------------------------------------------------------------------
  function buildQuestions() {
    $("questions").innerHTML = "";
    $("questions-panel").hidden = !D.questions.length;
    for (const q of D.questions) {
      const li = document.createElement("li");
      li.className = "question";
      li.appendChild(document.createTextNode(q.text + " "));
      const guess = document.createElement("input");
      guess.type = "text"; guess.className = "guess"; guess.placeholder = "your prediction"; guess.hidden = true;
      li.appendChild(guess);
      const button = document.createElement("button");
      button.className = "reveal"; button.textContent = "show the answer";
      const answer = document.createElement("div");
      answer.className = "answer"; answer.hidden = true; answer.textContent = q.answer;
      button.onclick = () => {
        answer.hidden = !answer.hidden;
        button.textContent = answer.hidden ? "show the answer" : "hide the answer";
        answer.textContent = q.answer + (!answer.hidden && guess.value ? " (you predicted: " + guess.value + ")" : "");
      };
      li.appendChild(button);
      li.appendChild(answer);
      $("questions").appendChild(li);
    }
  }
  $("predict").addEventListener("change", (ev) => { for (const g of document.querySelectorAll(".guess")) g.hidden = !ev.target.checked; });

  // ---- load: show a run or a lesson ------------------------------------------------------------
  // `text` is the page's data, exactly as `collsim html` writes it into the script element
  // (html::page_data / html::lesson_page_data): it replaces what is shown, with the
  // playhead at the start of its first phase. The listeners above stay as they are: they
  // read the shown data through D, PHASES and V.
  function load(text) {
    pause();
    const data = JSON.parse(text);
    if (data.format !== "collsim-page") throw new Error("collsim page: not a collsim page's data (format " + data.format + ")");
    if (data.version !== 5) throw new Error("collsim page: data version " + data.version + "; this player reads version 5 (docs/web.md)");
    D = data; PAL = D.palette; PHASES = D.phases; MULTI = PHASES.length > 1;
    V = null; phase = 0; t = 0; rest = 0;
    const V0 = D.views[0] || {};
    $("title").textContent = D.title || (V0.collective + " with " + V0.algorithm + " on " + V0.ranks + " ranks");
    $("subtitle").textContent = MULTI
      ? "a lesson of " + PHASES.length + " phases on " + D.program.ranks + " ranks · " + (D.program.total_us / 1000).toFixed(3) + " ms predicted · " + D.program.verdict
      : V0.collective + " · " + V0.algorithm + " · " + V0.ranks + " ranks · " + V0.count + " × " + V0.dtype + " · " + V0.steps + " steps, " +
        (V0.transfers ? transferCount(V0) : 0) + " transfers · " + V0.verdict;
    $("footer").textContent = "Made by collsim html" + (D.source ? " from " + D.source : "") + ". Keys: space play/pause, ← → step" + (MULTI ? " (on through the phases)" : "") + ", Home/End.";
    buildProgram();
    buildSizeCurve();
    buildQuestions();
    buildAbout(D.description || "");
    showNumbers(V0.numbers ? V0 : null);  // the header's height, before the stage measures what is left
    watchStage(D.stage);
    layoutStage();
    clock = D.clock || "steps";
    enterPhase(0, false);
  }
  // The description as C++ rendered it (lesson_description): paragraphs split at blank lines, a
  // paragraph's lines joined (the file wraps them), and its "- " lines (the "Try" suggestions) a list.
  function buildAbout(text) {
    const about = $("about");
    const html = (name, words) => { const e = document.createElement(name); e.textContent = words; return e; };
    about.textContent = "";
    $("about-panel").hidden = !text.trim();
    for (const para of text.split(/\n\s*\n/)) {
      let words = [], items = [];
      const flush = () => {
        if (words.length) about.appendChild(html("p", words.join(" ")));
        words = [];
      };
      for (const line of para.split("\n").map(l => l.trim()).filter(l => l)) {
        if (line.startsWith("- ")) { flush(); items.push(line.slice(2)); continue; }
        if (items.length) items[items.length - 1] += " " + line; else words.push(line);
      }
      flush();
      if (items.length) {
        const ul = about.appendChild(document.createElement("ul"));
        for (const item of items) {  // the change as typed, in code type: up to ": " or " ("
          const li = ul.appendChild(html("li", ""));
          const ends = [item.indexOf(": "), item.indexOf(" (")].filter(i => i > 0);
          const at = ends.length ? Math.min(...ends) : item.length;
          li.appendChild(html("code", item.slice(0, at)));
          li.appendChild(document.createTextNode(item.slice(at)));
        }
      }
    }
  }
  // The shown view's times, as C++ words them (numbers.h, headline_numbers): the prediction
  // first, then the simulation's own measured time; none for a compute phase.
  function showNumbers(view) {
    const box = $("numbers");
    box.replaceChildren();
    for (const n of (view && view.numbers) || []) {
      const p = document.createElement("p");
      p.dataset.kind = n.kind;
      for (const [cls, text] of [["head", n.head], ["figures", n.figures], ["about", n.about], ["note", n.note]]) {
        if (!text) continue;
        if (p.firstChild) p.append(" ");
        const span = document.createElement("span");
        span.className = cls;
        span.textContent = text;
        p.appendChild(span);
      }
      box.appendChild(p);
    }
    const words = view && view.numbers_line ? [view.numbers_line.predicted, view.numbers_line.measured].filter((w) => w) : [];
    if (words.length) {  // the stage's line: the prediction first (numbers.h, stage_numbers_line)
      const line = document.createElement("div");
      line.className = "line";
      line.textContent = line.title = words.join(" · ");
      box.appendChild(line);
    }
  }
  // A view's transfers, counted before its columns are decoded.
  function transferCount(V) {
    const src = V.transfers.src;
    if (!isColumn(src)) return src.length;
    const bytes = (src.base64.length / 4) * 3 - (src.base64.endsWith("==") ? 2 : src.base64.endsWith("=") ? 1 : 0);
    return bytes / COLUMN_TYPES[src.type].BYTES_PER_ELEMENT;
  }

  // ---- the stage (docs/web.md) ------------------------------------------------------------------
  // A projector's window, small for its text (under the app's threshold, the data's `stage`:
  // 64 x 40 ems, so 1280x800 at 150 % zoom; not a phone): the scene and the buffers fill the
  // window under the header, the transport and the caption (player.css, body.stage); what
  // follows is below them.
  let stageQuery = null, stage = false;
  function watchStage(s) {
    stageQuery = window.matchMedia("(min-width: 601px) and (max-width: " + s.width_em + "em), (min-width: 601px) and (max-height: " + s.height_em + "em)");
  }
  function layoutStage() {
    if (!stageQuery) return;
    stage = stageQuery.matches;
    document.body.classList.toggle("stage", stage);
    const main = document.querySelector("main");
    main.style.height = "";
    if (stage) main.style.height = Math.max(240, window.innerHeight - (main.getBoundingClientRect().top + window.scrollY) - 8) + "px";
  }

  // ---- start -----------------------------------------------------------------------------------
  window.addEventListener("resize", () => {
    layoutStage();
    if (V) { buildScene(); buildBuffers(); resetCells(); render(); }
    drawTimeline(); drawPlayhead(); drawProgram();
  });
  window.collsimPlayer = { load, seek, setClock, stepForward, stepBack, enterPhase, frame: () => (V ? frame() : null),
                           get t() { return t; }, get clock() { return clock; }, get phase() { return phase; } };
  load(document.getElementById("collsim-data").textContent);
  window.collsimReadyMs = performance.now();  // the load time docs/performance.md reports
})();
