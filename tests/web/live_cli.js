// Runs the live page's WebAssembly CLI (collsim-live.js) under node the way the page runs it
// (app/web/live.js): one module, the input files copied into its in-memory file system at
// their relative paths under /work, then `collsim ARGS` once per run, each as main() would.
// Reads {"module": PATH, "root": DIR, "files": [RELATIVE PATH...], "runs": [[ARG...]...],
// "read": [PATH...]} on stdin; prints [{"status", "out", "err", "files": {PATH: TEXT}}...],
// one per run (the `read` files as they are after that run).
"use strict";
const fs = require("fs");
const path = require("path");

async function main() {
  const spec = JSON.parse(fs.readFileSync(0, "utf8"));
  let lines = { out: [], err: [] };
  const CollsimLive = require(path.resolve(spec.module));
  const cli = await CollsimLive({ print: (t) => lines.out.push(t), printErr: (t) => lines.err.push(t) });
  cli.FS.mkdir("/work");
  cli.FS.chdir("/work");
  for (const file of spec.files) {
    let dir = "";
    for (const part of file.split("/").slice(0, -1)) {
      dir = dir ? dir + "/" + part : part;
      if (!cli.FS.analyzePath(dir).exists) cli.FS.mkdir(dir);
    }
    cli.FS.writeFile(file, fs.readFileSync(path.join(spec.root, file), "utf8"));
  }
  const results = [];
  for (const argv of spec.runs) {
    lines = { out: [], err: [] };
    let status;
    try {
      status = cli.callMain(argv);
    } catch (e) {
      status = typeof e.status === "number" ? e.status : 134;
      lines.err.push(String(e));
    }
    const files = {};
    for (const p of spec.read || [])
      if (cli.FS.analyzePath(p).exists) files[p] = cli.FS.readFile(p, { encoding: "utf8" });
    results.push({ status, out: lines.out.join("\n"), err: lines.err.join("\n"), files });
  }
  process.stdout.write(JSON.stringify(results));
}
main().catch((e) => { console.error(e); process.exit(3); });
