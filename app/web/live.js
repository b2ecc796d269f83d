// collsim's live page (app/web/live.h): a form that builds a collsim command line, and the
// collsim CLI compiled to WebAssembly (collsim-live.js: the factory CollsimLive) that runs it
// here, on an in-memory file system holding the page's input files. `collsim run` prints the
// summary shown under the form; `collsim html --data` writes the player's new data, which
// the player (player.js, window.collsimPlayer.load) then shows. Nothing here computes a fact
// of the run: every number on the page comes from the CLI. Plain JavaScript, no libraries.
"use strict";
(function () {
  const IN = JSON.parse(document.getElementById("collsim-live-input").textContent);
  const START = IN.start, CHOICES = IN.choices;
  const WORK = "/work";  // the CLI's working folder: the input files lie under it at their given paths
  let cli = null;        // the WebAssembly module, made on the first run
  let lines = { out: [], err: [] };

  // ---- the panel ---------------------------------------------------------------------------
  const style = document.createElement("style");
  style.textContent =  // on the player's own colours (player.css)
    "#live-panel{margin:0 0 8px}#live-panel h2 small{font-weight:normal;color:var(--dim)}" +
    "#live-form{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:center;margin:4px 0}#live-form select{max-width:15em}" +
    "#live-form input{background:#2c303a;color:var(--text);border:1px solid var(--line);border-radius:4px;padding:2px 4px}" +
    "#live-run{padding:3px 18px;background:#2f5d9e;color:#fff;border:1px solid #4a78b8;border-radius:5px;cursor:pointer}" +
    "#live-run:disabled{opacity:.5;cursor:wait}#live-command{color:#b8c2dc;word-break:break-all}#live-status{margin:2px 0}" +
    "#live-panel[data-state=error] #live-status{color:#ff9d8a}" +
    "#live-output summary{cursor:pointer;color:var(--dim)}" +
    "#live-summary{font-size:.8em;max-height:16em;overflow:auto;background:var(--bg);margin:0;padding:4px}";
  document.head.appendChild(style);
  const panel = document.createElement("section");
  panel.id = "live-panel";
  panel.innerHTML =
    '<h2>Run it again <small>collsim itself, compiled to WebAssembly, runs here in your browser: ' +
    'built, checked, executed, verified and predicted exactly as on the command line</small></h2>' +
    '<form id="live-form"></form>' +
    '<p><code id="live-command"></code></p>' +
    '<p id="live-status" aria-live="polite"></p>' +
    '<details id="live-output" hidden><summary>what collsim printed</summary><pre id="live-summary"></pre></details>';
  const main = document.querySelector("main");
  main ? main.parentNode.insertBefore(panel, main) : document.body.appendChild(panel);
  const form = panel.querySelector("#live-form");

  const fields = {};  // flag name (without --) -> its input or select
  function field(name, label, control, title) {
    const wrap = document.createElement("label");
    wrap.textContent = label + " ";
    wrap.title = title;
    control.id = "live-" + name;
    control.name = name;
    wrap.appendChild(control);
    form.appendChild(wrap);
    fields[name] = control;
    return control;
  }
  function select(options, value) {
    const s = document.createElement("select");
    for (const o of options) {
      const opt = document.createElement("option");
      opt.value = typeof o === "string" ? o : o.value;
      opt.textContent = typeof o === "string" ? o : o.label;
      s.appendChild(opt);
    }
    s.value = value;
    return s;
  }
  function input(value, size) {
    const i = document.createElement("input");
    i.type = "text";
    i.size = size;
    i.value = value;
    return i;
  }
  function algorithmsOf(collective) {
    const c = CHOICES.collectives.find((x) => x.name === collective);
    const names = c ? c.algorithms.slice() : [];
    if (collective === START.collective && !names.includes(START.algorithm)) names.push(START.algorithm);  // e.g. custom
    return names;
  }

  if (!IN.lesson) {
    const collective = field("collective", "collective", select(CHOICES.collectives.map((c) => c.name), START.collective),
                             "the collective (--collective)");
    const algorithm = field("algorithm", "algorithm", select(algorithmsOf(START.collective), START.algorithm),
                            "its algorithm (--algorithm)");
    collective.addEventListener("change", () => {
      const c = CHOICES.collectives.find((x) => x.name === collective.value);
      algorithm.replaceChildren(...select(algorithmsOf(collective.value), "").children);
      algorithm.value = c ? c.default : "";
      describe();
    });
  }
  field("ranks", "ranks", input(String(START.ranks), 4), "number of ranks (--ranks)");
  if (!IN.lesson) {
    field("count", "count", input(String(START.count), 8), "elements per block; K, M, G = powers of 1024 (--count)");
    field("dtype", "type", select(CHOICES.dtypes, START.dtype), "element type (--dtype)");
    field("op", "op", select(CHOICES.ops, START.op), "reduce op (--op)");
  }
  field("seed", "seed", input(START.seed, 6), "seed of the inputs (--seed)");
  field("topology", "topology", select(CHOICES.topologies, START.topology), "what the times are predicted on (--topology)");
  field("link", "links", select([{ value: "", label: "the topology's" }].concat(
    CHOICES.links.map((l) => ({ value: l.name, label: l.name + " (" + l.what + ")" }))), START.link),
        "the rank links' preset (--link)");
  const run = document.createElement("button");
  run.type = "submit";
  run.id = "live-run";
  run.textContent = "Run";
  form.appendChild(run);

  // ---- the command line: the input file, then every flag whose value differs from the page's
  // run (all of the run's flags when the page has no input file: a trace or the flags' run) --
  function args() {
    const a = IN.input ? [IN.input] : [];
    for (const name in fields) {
      const v = fields[name].value.trim();
      const given = String(START[name] === undefined ? "" : START[name]);
      const spec = ["collective", "algorithm", "ranks", "count", "dtype", "op"].includes(name);
      if (v !== given || (!IN.input && spec)) {
        if (name === "link" && v === "") continue;  // the topology's own: no flag
        a.push("--" + name, v);
      }
    }
    return a;
  }
  const quote = (s) => (/^[\w.,:/=+-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'");
  function describe() { $("live-command").textContent = "collsim run " + args().map(quote).join(" "); }
  function $(id) { return document.getElementById(id); }
  form.addEventListener("input", describe);
  form.addEventListener("change", describe);
  describe();

  // ---- running the CLI -----------------------------------------------------------------------
  async function module() {
    if (cli) return cli;
    cli = await CollsimLive({ print: (t) => lines.out.push(t), printErr: (t) => lines.err.push(t) });
    cli.FS.mkdir(WORK);
    cli.FS.chdir(WORK);
    for (const f of IN.files) {
      let dir = "";
      for (const part of f.path.split("/").slice(0, -1)) {
        dir = dir ? dir + "/" + part : part;
        if (dir && !cli.FS.analyzePath(dir).exists) cli.FS.mkdir(dir);
      }
      cli.FS.writeFile(f.path, f.text);
    }
    return cli;
  }
  // Runs `collsim ARGS` as main() would: its exit status and what it printed.
  function collsim(argv) {
    lines = { out: [], err: [] };
    let status;
    try {
      status = cli.callMain(argv);
    } catch (e) {  // an abort (a bug), not an error of the input: say so as it is
      status = typeof e.status === "number" ? e.status : 134;
      lines.err.push(String(e));
    }
    return { status, out: lines.out.join("\n"), err: lines.err.join("\n") };
  }

  // The CLI's output stays folded (the scene below is what changed) unless it is an error.
  function show(status, text, summary) {
    $("live-status").textContent = status;
    $("live-summary").textContent = summary;
    $("live-output").hidden = summary === "";
    $("live-output").open = text === "error";
    panel.dataset.state = text;
  }
  async function rerun(event) {
    event.preventDefault();
    const a = args();
    run.disabled = true;
    show("running collsim run " + a.map(quote).join(" ") + " …", "running", "");
    await new Promise((r) => setTimeout(r, 20));  // let the status paint before the run takes the thread
    try {
      await module();
      const began = performance.now();
      // On the CPU backend, asked for: a browser has no CUDA, and `auto` would say so before
      // anything else (the prediction leads the summary, as on the page).
      const summary = collsim(["run"].concat(a, ["--backend", "cpu"]));
      if (summary.status !== 0 && summary.status !== 1) {  // 1: ran, but a wrong result, which the summary says
        show("collsim run stopped (exit " + summary.status + "):", "error", summary.err || summary.out);
        return;
      }
      const page = collsim(["html"].concat(a, ["--data", "--out", "/live-page.json"]));
      if (page.status !== 0) {
        show("collsim html stopped (exit " + page.status + "):", "error", page.err || page.out);
        return;
      }
      window.collsimPlayer.load(cli.FS.readFile("/live-page.json", { encoding: "utf8" }));
      const ms = performance.now() - began;
      show("ran here in " + (ms / 1000).toFixed(2) + " s (exit " + summary.status + "); the page now shows this run.",
           summary.status === 0 ? "done" : "wrong", summary.out + (summary.err ? "\n" + summary.err : ""));
    } catch (e) {
      show("the live page failed: " + e, "error", "");
    } finally {
      run.disabled = false;
    }
  }
  form.addEventListener("submit", rerun);
  // For tests and the curious: the CLI as this page runs it.
  window.collsimLive = { args, run: async (argv) => { await module(); return collsim(argv); } };
})();
