// collsim's web player (app/html/page.h): plays the run whose data sits in the page's
// <script id="collsim-data"> element. It draws what the view model computed and searches
// it by time; it derives nothing of the run itself. Plain JavaScript, no libraries.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("collsim-data").textContent);
  const T = D.transfers, B = D.buffers, L = D.layout, P = D.palette;
  const N = T.src.length, STEPS = D.steps;
  const SVG = "http://www.w3.org/2000/svg";
  const $ = (id) => document.getElementById(id);

  // ---- clocks ------------------------------------------------------------------------
  // Per clock: the transfers sorted by begin (for "in flight at t"), the longest transfer,
  // and the change keys as a typed array (null, the initial state, is -Infinity).
  const clockNames = ["steps", "measured", "predicted"].filter((c) => D.clocks[c]);
  const prepared = {};
  function prepare(name) {
    if (prepared[name]) return prepared[name];
    const c = D.clocks[name];
    const byBegin = new Uint32Array(N);
    for (let i = 0; i < N; ++i) byBegin[i] = i;
    byBegin.sort((a, b) => c.begin[a] - c.begin[b]);
    let longest = 0;
    for (let i = 0; i < N; ++i) longest = Math.max(longest, c.end[i] - c.begin[i]);
    const keys = new Float64Array(c.keys.length);
    for (let i = 0; i < keys.length; ++i) keys[i] = c.keys[i] === null ? -Infinity : c.keys[i];
    return (prepared[name] = { c, byBegin, longest, keys });
  }
  // The first index in sorted `a` whose value is > v (or >= v when `inclusive` is false).
  function upperBound(a, v, from, to) {
    let lo = from === undefined ? 0 : from, hi = to === undefined ? a.length : to;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (a[mid] <= v) lo = mid + 1; else hi = mid;
    }
    return lo;
  }
  function stepsDone(c, t) { return upperBound(c.step_done, t); }
  function stepTime(c, k) { return k <= 0 || c.step_done.length === 0 ? c.start : c.step_done[Math.min(k, STEPS) - 1]; }

  // Transfers are in step order: where each step's transfers start.
  const stepFirst = new Uint32Array(STEPS + 1);
  for (let k = 0, i = 0; k <= STEPS; ++k) {
    while (i < N && T.step[i] < k) ++i;
    stepFirst[k] = i;
  }

  // ---- the state at the playhead -------------------------------------------------------
  let clock = clockNames.includes(D.clock) ? D.clock : "steps";
  let t = 0, playing = false, speed = 1;

  // What the view model's Frame holds: steps done, in flight (with progress), queued, caption.
  function frame() {
    const pc = prepare(clock), c = pc.c;
    const f = { done: stepsDone(c, t), flying: [], queued: [] };
    let i;
    // In flight: begin < t < end, among those that began within the longest duration before t.
    let lo = 0, hi = N;
    const from = t - pc.longest;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (c.begin[pc.byBegin[mid]] < from) lo = mid + 1; else hi = mid;
    }
    for (i = lo; i < N; ++i) {
      const x = pc.byBegin[i], b = c.begin[x], e = c.end[x];
      if (b >= t) break;
      if (t < e) f.flying.push([x, (t - b) / (e - b)]);
    }
    // Queued: on the steps clock, strictly inside step k, its transfers that have not
    // begun; on a time clock, those of the first unfinished step once it is under way.
    let k = -1;
    if (clock === "steps") {
      if (t >= 0 && t < STEPS && t > Math.floor(t)) k = Math.floor(t);
    } else if (f.done < STEPS) {
      for (let x = stepFirst[f.done]; x < stepFirst[f.done + 1]; ++x) if (c.begin[x] < t) { k = f.done; break; }
    }
    if (k >= 0)
      for (let x = stepFirst[k]; x < stepFirst[k + 1]; ++x)
        if (c.begin[x] >= t && c.end[x] > t && T.src[x] !== T.dst[x]) f.queued.push(x);
    f.step = Math.min(f.done + (f.flying.length || f.queued.length ? 1 : 0), STEPS);
    f.caption = caption(f);
    return f;
  }

  // ViewModel::caption, from the captions it wrote for every step.
  function caption(f) {
    const C = D.captions;
    if (STEPS === 0 || f.done >= STEPS) return C.after[STEPS];
    const moving = f.flying.map((p) => p[0]).concat(f.queued);
    if (moving.length === 0) return C.after[f.done];
    let first = STEPS, last = -1;
    for (const x of moving) first = Math.min(first, T.step[x]), last = Math.max(last, T.step[x]);
    if (clock !== "steps" && last > first)
      return "Steps " + (first + 1) + " to " + (last + 1) + " overlap (pipelined). Earliest: " + C.titles[first];
    return C.in[first];
  }

  // ---- the scene -----------------------------------------------------------------------
  const scene = $("scene");
  const R = L.rank_radius, PR = Math.max(L.packet_radius, 0.012);
  function el(name, attrs, parent, text) {
    const e = document.createElementNS(SVG, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function rankColour(r) { return L.ranks <= P.stripes_up_to ? P.ranks[r % 16] : "#8f9bb3"; }
  function buildScene() {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    const grow = (x, y, m) => { x0 = Math.min(x0, x - m); y0 = Math.min(y0, y - m); x1 = Math.max(x1, x + m); y1 = Math.max(y1, y + m); };
    L.nodes.forEach((p, i) => grow(p[0], p[1], i < L.ranks ? R * 1.6 : 0.12));
    for (const b of L.boxes) grow(b.x0, b.y0, 0.02), grow(b.x1, b.y1, 0.02);
    for (const w of L.link_ways) for (let i = 0; i < w.length; i += 2) grow(w[i], w[i + 1], 0.02);
    scene.setAttribute("viewBox", [x0, y0, x1 - x0, y1 - y0].join(" "));
    const font = Math.max(R * 0.9, (y1 - y0) * 0.025);
    for (const b of L.boxes) {
      el("rect", { x: b.x0, y: b.y0, width: b.x1 - b.x0, height: b.y1 - b.y0, rx: 0.03, fill: "none", stroke: P.grid, "stroke-width": 0.006 }, scene);
      el("text", { x: b.x0 + 0.02, y: b.y0 + font, "font-size": font * 0.8, fill: "#969caa" }, scene, b.label);
    }
    L.links.forEach((lk, i) => {
      const w = L.link_ways[i], pts = [];
      for (let j = 0; j < w.length; j += 2) pts.push(w[j] + "," + w[j + 1]);
      const attrs = { class: "link", points: pts.join(" "), fill: "none", stroke: lk[2] > 0 ? P.second_tree : "#7d7560", "stroke-width": Math.max(R * 0.12, 0.004) };
      if (lk[2] > 0) attrs["stroke-dasharray"] = R * 0.4 + " " + R * 0.3;
      el("polyline", attrs, scene);
    });
    L.hub_labels.forEach((label, h) => {
      const p = L.nodes[L.ranks + h], w = Math.max(R * 3.2, 0.16), ht = Math.max(R * 1.6, 0.07);
      el("rect", { x: p[0] - w / 2, y: p[1] - ht / 2, width: w, height: ht, rx: 0.02, fill: P.hub, stroke: "#969caa", "stroke-width": 0.004 }, scene);
      el("text", { x: p[0], y: p[1], "font-size": font * 0.75, fill: "#e6e8ee", "text-anchor": "middle", "dominant-baseline": "central" }, scene, label);
    });
    for (let r = 0; r < L.ranks; ++r) {
      const p = L.nodes[r], g = el("g", { class: "rank", "data-rank": r }, scene);
      if (L.servers[r]) el("rect", { x: p[0] - R, y: p[1] - R, width: 2 * R, height: 2 * R, rx: R * 0.2, fill: rankColour(r) }, g);
      else el("circle", { cx: p[0], cy: p[1], r: R, fill: rankColour(r) }, g);
      el("text", { x: p[0], y: p[1], "font-size": R * 0.95, fill: "#141418", "text-anchor": "middle", "dominant-baseline": "central" }, g, String(r));
      el("title", {}, g, "rank " + r + (L.servers[r] ? " (server)" : ""));
    }
    packetsLayer = el("g", { id: "packets" }, scene);
    $("scene-note").textContent = "arranged by " + L.arrangement + ". A filled disc with +k adds chunk k into the receiver; an outlined square with k copies it.";
  }
  let packetsLayer = null;
  function wayPoint(w, progress) {
    const pts = T.ways[w], n = pts.length / 2 - 1, at = Math.min(Math.max(progress, 0), 1) * n, i = Math.min(Math.floor(at), n - 1), f = at - i;
    return [pts[2 * i] + (pts[2 * i + 2] - pts[2 * i]) * f, pts[2 * i + 1] + (pts[2 * i + 3] - pts[2 * i + 1]) * f];
  }
  const kMaxPackets = 3000;
  function drawPackets(f) {
    const parts = [];
    const packet = (x, p, faded) => {
      const reduce = T.reduce[x] === 1, chunk = T.chunk[x];
      const label = (reduce ? "+" : "") + chunk;
      const op = faded ? ' opacity="0.45"' : "";
      let s = '<g class="packet" data-transfer="' + x + '" data-queued="' + (faded ? 1 : 0) + '"' + op + ">";
      s += reduce ? '<circle cx="' + p[0] + '" cy="' + p[1] + '" r="' + PR + '" fill="' + P.packet + '"/>'
                  : '<rect x="' + (p[0] - PR) + '" y="' + (p[1] - PR) + '" width="' + 2 * PR + '" height="' + 2 * PR + '" fill="#24272f" stroke="' + P.packet + '" stroke-width="' + PR * 0.25 + '"/>';
      s += '<text x="' + p[0] + '" y="' + p[1] + '" font-size="' + PR * 1.05 + '" text-anchor="middle" dominant-baseline="central" fill="' + (reduce ? P.packet_ink : P.packet) + '">' + label + "</text></g>";
      parts.push(s);
    };
    for (const [x, progress] of f.flying.slice(0, kMaxPackets)) if (T.way[x] >= 0) packet(x, wayPoint(T.way[x], progress), false);
    // Queued ones wait at their sender's edge, one behind the other.
    const waiting = {};
    for (const x of f.queued.slice(0, kMaxPackets)) {
      if (T.way[x] < 0) continue;
      const n = (waiting[T.src[x]] = (waiting[T.src[x]] || 0) + 1) - 1;
      const a = wayPoint(T.way[x], 0), b = wayPoint(T.way[x], 0.15);
      packet(x, [a[0] - (b[0] - a[0]) * n * 0.6, a[1] - (b[1] - a[1]) * n * 0.6], true);
    }
    packetsLayer.innerHTML = parts.join("");
  }

  // ---- the buffers ---------------------------------------------------------------------
  const buffers = $("buffers");
  const stripes = D.total_ranks <= P.stripes_up_to;
  const cellState = new Int32Array(B.cells.begin.length).fill(-2);  // the change shown, per cell
  const maskLo = new Uint32Array(B.changes.mask.length), maskHi = new Uint32Array(B.changes.mask.length);
  B.changes.mask.forEach((m, i) => { const v = BigInt("0x" + m); maskLo[i] = Number(v & 0xffffffffn); maskHi[i] = Number(v >> 32n); });
  const has = (i, q) => (q < 32 ? (maskLo[i] >>> q) & 1 : q < 64 ? (maskHi[i] >>> (q - 32)) & 1 : 0) === 1;
  const eventualRanks = B.cells.eventual.map((m) => { const v = BigInt("0x" + m), out = []; for (let q = 0; q < 64; ++q) if ((v >> BigInt(q)) & 1n) out.push(q); return out; });
  const cellNodes = [];
  const bufferName = { input: "in", output: "out", scratch: "scr" };
  function buildBuffers() {
    const showInputs = D.total_ranks <= 8;
    const rows = B.rows.filter((row) => showInputs || !row.optional);
    const width = Math.max(buffers.clientWidth || 400, 280), label = 86, rowH = 22, gap = 4;
    buffers.setAttribute("viewBox", "0 0 " + width + " " + (rows.length * (rowH + gap) + 4));
    buffers.setAttribute("height", rows.length * (rowH + gap) + 4);
    rows.forEach((row, k) => {
      const y = 2 + k * (rowH + gap);
      el("text", { x: 4, y: y + rowH / 2, "font-size": 13, fill: "#e6e8ee", "dominant-baseline": "central" }, buffers, "rank " + row.rank + " " + bufferName[row.buffer]);
      if (stripes) el("rect", { x: label - 8, y: y + 2, width: 4, height: rowH - 4, fill: P.ranks[row.rank % 16] }, buffers);
      for (let c = row.first; c < row.first + row.count; ++c) {
        const x = label + B.cells.x0[c] * (width - label - 4), w = Math.max((B.cells.x1[c] - B.cells.x0[c]) * (width - label - 4) - 1, 0.5);
        const g = el("g", { class: "cell", "data-rank": row.rank, "data-buffer": row.buffer, "data-cell": c - row.first, "data-begin": B.cells.begin[c], "data-end": B.cells.end[c] }, buffers);
        cellNodes[c] = { g, x, y, w, h: rowH };
      }
    });
  }
  // The change in effect in cell c at t: the last whose key is <= t.
  function changeAt(c, keys) {
    const first = B.cells.first[c], n = B.cells.count[c];
    const i = upperBound(keys, t, first, first + n) - 1;
    return i >= first ? i : -1;
  }
  // A cell's elements are made once (its rank slots, or one shade; its "k/n"; its title) and
  // only their attributes change with the playhead, so that scrubbing 4 000 cells stays cheap.
  function makeCell(node, c) {
    const slots = stripes ? (eventualRanks[c].length ? eventualRanks[c] : [-1]) : [-1];
    const sw = node.w / slots.length;
    node.slots = slots.map((q, s) => ({ q, rect: el("rect", { x: node.x + s * sw, y: node.y, width: sw + 0.2, height: node.h, fill: P.empty }, node.g) }));
    if (node.w <= 30) return;  // too narrow for "k/n": no element to keep up to date
    node.label = el("text", { x: node.x + node.w / 2, y: node.y + node.h / 2, "font-size": 11, "text-anchor": "middle", "dominant-baseline": "central",
                              fill: "#141418", stroke: "#f0f0f0", "stroke-width": 2.5, "paint-order": "stroke" }, node.g, "");
  }
  // A cell's tooltip, made when the pointer reaches it (not on every frame).
  buffers.addEventListener("mouseover", (ev) => {
    const g = ev.target.closest && ev.target.closest(".cell");
    if (!g) return;
    const c = B.rows.find((row) => String(row.rank) === g.dataset.rank && row.buffer === g.dataset.buffer).first + Number(g.dataset.cell);
    const i = cellState[c], written = i >= 0 && B.changes.written[i] === 1;
    let title = g.querySelector("title") || el("title", {}, g);
    title.textContent = "rank " + g.dataset.rank + " " + g.dataset.buffer + " [" + g.dataset.begin + ", " + g.dataset.end + "): " +
      (written ? "holds " + B.changes.holds[i] + " of " + B.cells.target[c] + " ranks' contributions (" + g.dataset.holds + ")" : "empty") +
      (i >= 0 && B.changes.writer[i] >= 0 ? "; written by transfer " + B.changes.writer[i] : "");
  });
  function drawCell(c, i) {
    const node = cellNodes[c];
    if (!node.slots) makeCell(node, c);
    const written = i >= 0 && B.changes.written[i] === 1;
    const holds = written ? B.changes.holds[i] : 0, target = B.cells.target[c];
    const held = [];
    if (written) for (let q = 0; q < 64; ++q) if (has(i, q)) held.push(q);
    const holdsText = held.join(" ");
    if (node.holds !== holdsText) node.g.setAttribute("data-holds", (node.holds = holdsText));
    for (const slot of node.slots) {
      const fill = !written ? P.empty
                 : !stripes ? P.ramp[Math.round((holds / Math.max(target, 1)) * (P.ramp.length - 1))]
                 : slot.q < 0 ? P.ranks[(held[0] || 0) % 16]
                 : has(i, slot.q) ? P.ranks[slot.q % 16] : P.missing;
      if (slot.fill !== fill) slot.rect.setAttribute("fill", (slot.fill = fill));
    }
    const label = written ? holds + "/" + target : "";
    if (node.label && node.labelText !== label) node.label.textContent = (node.labelText = label);
  }
  function drawBuffers() {
    const keys = prepare(clock).keys;
    for (let c = 0; c < cellNodes.length; ++c) {
      if (!cellNodes[c]) continue;
      const i = changeAt(c, keys);
      if (i !== cellState[c]) cellState[c] = i, drawCell(c, i);
    }
  }

  // ---- the timeline ----------------------------------------------------------------------
  const tl = $("timeline"), head = $("timeline-head");
  const laneH = 18, labelW = 70;
  function timelineRange() { const c = prepare(clock).c; return [c.start, Math.max(c.finish, c.start + 1e-9)]; }
  function xOf(v, width) { const [a, b] = timelineRange(); return labelW + ((v - a) / (b - a)) * (width - labelW - 4); }
  function drawTimeline() {
    const ranks = D.total_ranks, dpr = window.devicePixelRatio || 1;
    const width = Math.max(tl.clientWidth || 600, 300), height = Math.min(ranks, 64) * laneH + 4;
    for (const cv of [tl, head]) { cv.width = width * dpr; cv.height = height * dpr; cv.style.height = height + "px"; }
    const g = tl.getContext("2d");
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, width, height);
    g.font = "11px system-ui, sans-serif";
    const c = prepare(clock).c;
    for (let r = 0; r < Math.min(ranks, 64); ++r) {
      g.fillStyle = "#e6e8ee";
      g.fillText("rank " + r, 4, r * laneH + 13);
    }
    // A bar per transfer: the sender's lane on top, the receiver's below; bars under a
    // pixel wide in one lane fold into the one before them.
    const last = new Float64Array(Math.min(ranks, 64) * 2).fill(-1);
    for (let x = 0; x < N; ++x) {
      if (T.src[x] === T.dst[x]) continue;
      const b = xOf(c.begin[x], width), e = Math.max(xOf(c.end[x], width), b + 1);
      for (const [r, half] of [[T.src[x], 0], [T.dst[x], 1]]) {
        if (r >= 64) continue;
        const lane = r * 2 + half;
        if (e <= last[lane] + 0.5) continue;
        last[lane] = e;
        const y = r * laneH + 2 + half * 8;
        g.fillStyle = T.reduce[x] ? P.packet : "#24272f";
        g.fillRect(b, y, e - b, 7);
        if (!T.reduce[x]) { g.strokeStyle = P.packet; g.lineWidth = 1; g.strokeRect(b + 0.5, y + 0.5, e - b - 1, 6); }
      }
    }
    $("timeline-note").textContent = "a lane per rank: sends above, receives below; filled: reduce, outlined: copy (" + clock + " clock)" + (ranks > 64 ? "; the first 64 ranks" : "");
  }
  function drawPlayhead() {
    const width = head.width / (window.devicePixelRatio || 1), g = head.getContext("2d");
    g.setTransform(window.devicePixelRatio || 1, 0, 0, window.devicePixelRatio || 1, 0, 0);
    g.clearRect(0, 0, width, head.height);
    const x = xOf(t, width);
    g.strokeStyle = "#ff5a5a";
    g.lineWidth = 2;
    g.beginPath(); g.moveTo(x, 0); g.lineTo(x, head.height); g.stroke();
  }
  tl.addEventListener("click", (ev) => {
    const rect = tl.getBoundingClientRect(), [a, b] = timelineRange();
    const v = a + ((ev.clientX - rect.left - labelW) / (rect.width - labelW - 4)) * (b - a);
    pause(); seek(v);
  });

  // ---- the transport -------------------------------------------------------------------
  function fmtTime(ns) {
    if (clock === "steps") return "step " + ns.toFixed(2) + " / " + STEPS;
    const us = ns / 1000;
    return us >= 1000 ? (us / 1000).toFixed(3) + " ms" : us.toFixed(3) + " µs";
  }
  function render() {
    const f = frame(), c = prepare(clock).c;
    drawPackets(f);
    drawBuffers();
    drawPlayhead();
    const ph = $("playhead");
    ph.textContent = "Step " + f.step + "/" + STEPS;
    ph.dataset.t = String(t); ph.dataset.step = String(f.step); ph.dataset.done = String(f.done); ph.dataset.clock = clock;
    ph.dataset.flying = String(f.flying.length); ph.dataset.queued = String(f.queued.length);
    $("caption").textContent = (clock === "steps" ? "" : "t = " + fmtTime(t) + "  ") + f.caption;
    const file = D.captions.file || [];
    $("file-caption").textContent = file[f.step] || "";
    const scrub = $("scrub");
    scrub.min = c.start; scrub.max = Math.max(c.finish, c.start + 1e-9); scrub.value = t;
    $("position").textContent = clock === "steps" ? fmtTime(t) : fmtTime(t) + " / " + fmtTime(c.finish);
  }
  function seek(v) { const c = prepare(clock).c; t = Math.min(Math.max(v, c.start), c.finish); render(); }
  function stepForward() { const c = prepare(clock).c; pause(); seek(stepTime(c, Math.min(upperBound(c.step_done, t) + 1, STEPS))); }
  function stepBack() {
    const c = prepare(clock).c;
    pause();
    let k = upperBound(c.step_done, t);  // steps done by t
    while (k > 0 && stepTime(c, k) >= t) --k;
    seek(stepTime(c, k));
  }
  let lastFrame = 0;
  function tick(now) {
    if (!playing) return;
    const dt = lastFrame ? Math.min((now - lastFrame) / 1000, 0.1) : 0;
    lastFrame = now;
    const c = prepare(clock).c, perSecond = clock === "steps" ? 1 : (c.finish - c.start) / Math.max(STEPS, 1);
    t = Math.min(t + dt * perSecond * speed, c.finish);
    render();
    if (t >= c.finish) return pause();
    requestAnimationFrame(tick);
  }
  function play() {
    const c = prepare(clock).c;
    if (t >= c.finish) t = c.start;
    playing = true; lastFrame = 0;
    $("play-icon").setAttribute("d", "M6 5h4v14H6zM14 5h4v14h-4z");
    requestAnimationFrame(tick);
  }
  function pause() { playing = false; $("play-icon").setAttribute("d", "M7 5v14l12-7z"); }
  function toggle() { playing ? pause() : play(); }
  // Switching the clock keeps the step position: k steps done and the same share of step k + 1.
  function setClock(name) {
    const a = prepare(clock).c, b = prepare(name).c;
    const k = stepsDone(a, t), t0 = stepTime(a, k), t1 = stepTime(a, k + 1);
    const share = t1 > t0 ? (t - t0) / (t1 - t0) : 0;
    clock = name;
    const u0 = stepTime(b, k), u1 = stepTime(b, k + 1);
    t = k >= STEPS ? b.finish : u0 + share * (u1 - u0);
    cellState.fill(-2);
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
  const clockSelect = $("clock");
  for (const name of clockNames) { const o = document.createElement("option"); o.value = o.textContent = name; clockSelect.appendChild(o); }
  clockSelect.value = clock;
  clockSelect.addEventListener("change", (ev) => setClock(ev.target.value));
  document.addEventListener("keydown", (ev) => {
    if (ev.target && (ev.target.tagName === "INPUT" && ev.target.type === "text" || ev.target.tagName === "SELECT")) return;
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

  // ---- the questions -------------------------------------------------------------------
  function buildQuestions() {
    if (!D.questions.length) return;
    $("questions-panel").hidden = false;
    D.questions.forEach((q, k) => {
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
        if (!answer.hidden && guess.value) answer.textContent = q.answer + " (you predicted: " + guess.value + ")";
      };
      li.appendChild(button); li.appendChild(answer);
      $("questions").appendChild(li);
      void k;
    });
    $("predict").addEventListener("change", (ev) => {
      for (const g of document.querySelectorAll(".guess")) g.hidden = !ev.target.checked;
    });
  }

  // ---- start ---------------------------------------------------------------------------
  $("title").textContent = D.title || D.collective + " with " + D.algorithm + " on " + D.ranks + " ranks";
  $("subtitle").textContent = D.collective + " · " + D.algorithm + " · " + D.ranks + " ranks · " + D.count + " × " + D.dtype +
    " · " + STEPS + " steps, " + N + " transfers · " + (D.verified ? "verified" : "NOT verified") +
    (D.predicted_on ? " · predicted on " + D.predicted_on : "");
  $("footer").textContent = "Made by collsim html" + (D.source ? " from " + D.source : "") + ". Keys: space play/pause, ← → step, Home/End.";
  buildScene();
  buildBuffers();
  buildQuestions();
  const legend = $("legend");
  legend.textContent = stripes ? "a stripe per rank a cell will hold, coloured once its contribution has arrived; k/n: ranks it holds of those it will hold"
                               : "shade: the share of its ranks a cell holds (dark: none, light: all)";
  drawTimeline();
  seek(prepare(clock).c.start);
  window.addEventListener("resize", () => { drawTimeline(); drawPlayhead(); });
  window.collsimReadyMs = performance.now();  // the load time docs/performance.md reports
  window.collsimPlayer = { seek, setClock, stepForward, stepBack, frame: () => frame(), get t() { return t; }, get clock() { return clock; } };
})();
