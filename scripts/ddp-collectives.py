#!/usr/bin/env python3
"""Measures which collectives PyTorch DistributedDataParallel issues, in order, per rank.

What it does: starts WORLD_SIZE processes on this machine (torch.multiprocessing, gloo
backend, CPU), wraps torchvision's ResNet-34 (weights=None) in DDP with the default options
(bucket_cap_mb 25, broadcast_buffers=True, find_unused_parameters=False), and runs ITERS
iterations of forward / backward / SGD step on a tiny random batch (default 2 images of
3x64x64). It prints every collective each rank issued, in order, with op, dtype, element
count, bytes and phase: DDP's constructor, the buffer sync before each forward, the bucket
rebuild, and the gradient buckets of each backward.

Where the figures come from:
- op, dtype, sizes and order: PyTorch's Flight Recorder, which records the gloo backend's
  collectives in the C++ ProcessGroup (torch._C._distributed_c10d._dump_fr_trace(backend=
  "gloo"); enabled by TORCH_FR_BUFFER_SIZE, which this script sets). Each entry carries the
  Python stack at the call, and the "source" column is the innermost torch function on it.
- phase: the script reads the recorder's length at each boundary (after the constructor,
  after each forward, backward and step), so an entry's phase is the interval it fell in.
- bucket contents (parameter names, first tensor): a DDP communication hook that logs
  bucket.index(), bucket.buffer() and bucket.parameters(), then runs the stock
  allreduce_hook (the same all_reduce on the same buffer). --no-hook runs DDP's built-in
  C++ all-reduce instead; the recorder's sequence should be the same (it is, with torch 2.15).
- gradient-ready order: register_post_accumulate_grad_hook on every parameter.

How to run (torch is NOT a dependency of the project; use a venv outside the repository):
    python3 -m venv /work/venv-torch
    /work/venv-torch/bin/pip install torch torchvision   # any CPU-capable build
    /work/venv-torch/bin/python scripts/ddp-collectives.py --world-size 2
    /work/venv-torch/bin/python scripts/ddp-collectives.py --world-size 4 --json out.json

Options: --iters N, --batch N, --image-size N, --no-hook, --threads N (per rank, default 1),
--names (print every parameter name of each bucket), --json PATH (raw per-rank records).

collsim's build and tests never need torch or this script: it only produced the figures in
docs/ddp-measured.md.
"""
import argparse
import json
import os
import pickle
import socket
import sys
import tempfile

DTYPE_BYTES = {"Float": 4, "Double": 8, "Half": 2, "BFloat16": 2, "Long": 8, "Int": 4,
               "Short": 2, "Char": 1, "Byte": 1, "Bool": 1}
DTYPE_NAMES = {"Float": "float32", "Double": "float64", "Half": "float16",
               "BFloat16": "bfloat16", "Long": "int64", "Int": "int32", "Short": "int16",
               "Char": "int8", "Byte": "uint8", "Bool": "bool"}

# Innermost torch (not this script's) function on the recorded stack -> what it is.
SOURCES = {
    "_verify_param_shape_across_processes":
        "torch/distributed/utils.py _verify_param_shape_across_processes -> "
        "dist._verify_params_across_processes (C++)",
    "_sync_params_and_buffers":
        "torch/distributed/utils.py _sync_params_and_buffers -> dist._broadcast_coalesced",
    "_distributed_broadcast_coalesced":
        "distributed.py _sync_buffers -> _distributed_broadcast_coalesced -> "
        "dist._broadcast_coalesced",
    "_pre_forward":
        "distributed.py _pre_forward -> reducer._rebuild_buckets (C++)",
    "_allreduce_fut":
        "comm hook -> default_hooks._allreduce_fut -> dist.all_reduce",
    "_engine_run_backward":
        "loss.backward() -> autograd engine -> C++ Reducer's built-in all-reduce",
}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world_size, port, outdir, opts):
    import torch
    import torch.distributed as dist
    import torchvision
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.distributed.algorithms.ddp_comm_hooks import default_hooks

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.set_num_threads(opts["threads"])
    dist.init_process_group("gloo", rank=rank, world_size=world_size)

    def fr_entries():
        raw = torch._C._distributed_c10d._dump_fr_trace(
            includeCollectives=True, includeStackTraces=True, onlyActive=False,
            backend="gloo")
        return pickle.loads(raw).get("entries", [])

    marks = []  # (phase label, number of recorder entries when it ended)

    def mark(label):
        marks.append((label, len(fr_entries())))

    mark("init_process_group")
    torch.manual_seed(1000 + rank)  # different weights per rank: the constructor must sync
    model = torchvision.models.resnet34(weights=None)
    names = {id(p): n for n, p in model.named_parameters()}
    mark("model built")

    ddp = DDP(model)  # default options
    mark("constructor")

    iteration = [0]
    hook_log = []
    if not opts["no_hook"]:
        def logging_hook(state, bucket):
            buf = bucket.buffer()
            hook_log.append({
                "iteration": iteration[0], "index": bucket.index(),
                "numel": buf.numel(), "dtype": str(buf.dtype).replace("torch.", ""),
                "params": [names[id(p)] for p in bucket.parameters()]})
            return default_hooks.allreduce_hook(state, bucket)
        ddp.register_comm_hook(None, logging_hook)

    ready = []
    for n, p in model.named_parameters():
        p.register_post_accumulate_grad_hook(
            lambda p, n=n: ready.append((iteration[0], n)))

    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(7 + rank)
    logging_data = {}
    for it in range(1, opts["iters"] + 1):
        iteration[0] = it
        x = torch.randn(opts["batch"], 3, opts["image_size"], opts["image_size"],
                        generator=gen)
        y = torch.randint(0, 1000, (opts["batch"],), generator=gen)
        out = ddp(x)
        mark(f"iter {it} forward")
        loss_fn(out, y).backward()
        mark(f"iter {it} backward")
        opt.step()
        opt.zero_grad()
        mark(f"iter {it} step")
        data = ddp._get_ddp_logging_data()
        logging_data[it] = {k: data[k] for k in sorted(data)
                            if "bucket" in k or k in ("num_parameter_tensors",
                                                      "total_parameter_size_bytes")}

    entries = []
    for e in fr_entries():
        frames = [f["name"] for f in e.get("frames", [])
                  if "site-packages/torch" in f.get("filename", "")
                  or "/torch/" in f.get("filename", "")]
        entries.append({
            "record_id": e["record_id"], "seq": e["collective_seq_id"],
            "op": e["profiling_name"], "input_sizes": e["input_sizes"],
            "input_dtypes": e["input_dtypes"], "output_sizes": e["output_sizes"],
            "output_dtypes": e["output_dtypes"], "torch_frames": frames})

    buffers = [(n, str(b.dtype).replace("torch.", ""), b.numel())
               for n, b in model.named_buffers()]
    params = [(n, str(p.dtype).replace("torch.", ""), p.numel())
              for n, p in model.named_parameters()]
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "torch": torch.__version__,
                   "torchvision": torchvision.__version__,
                   "first_bucket_bytes": dist._DEFAULT_FIRST_BUCKET_BYTES,
                   "entries": entries, "marks": marks, "hook_log": hook_log,
                   "ready": ready, "params": params, "buffers": buffers,
                   "logging_data": logging_data}, f)
    dist.destroy_process_group()


def numel(sizes):
    total = 0
    for s in sizes:
        n = 1
        for d in s:
            n *= d
        total += n
    return total


def phase_of(index, marks):
    start = 0
    for label, end in marks:
        if start <= index < end:
            return label
        start = end
    return "after last mark"


def source_of(entry):
    # frames are innermost first in the recorder's dump
    for fn in entry["torch_frames"]:
        if fn in SOURCES:
            return fn
    if not entry["torch_frames"]:
        return "(no Python frame: C++ Reducer)"
    return entry["torch_frames"][0]


def rows_for(rank_data):
    """One row per recorded collective: (phase, op, dtype, elements, bytes, source, detail)."""
    rows = []
    hooks = {}
    for h in rank_data["hook_log"]:
        hooks.setdefault(h["iteration"], []).append(h)
    used = {}
    for i, e in enumerate(rank_data["entries"]):
        phase = phase_of(i, rank_data["marks"])
        op = e["op"].replace("gloo:", "")
        dt = e["input_dtypes"][0] if e["input_dtypes"] else "?"
        n_in = numel(e["input_sizes"])
        n_out = numel(e["output_sizes"])
        src = source_of(e)
        detail = ""
        if op == "all_gather":
            detail = f"output {n_out} elements, shape {e['output_sizes'][0]}"
        if src == "_verify_param_shape_across_processes":
            detail = ("number of parameter tensors, " + detail if op == "all_gather"
                      else "sizes and strides of every parameter (2 x sum of dims)")
        elif src == "_pre_forward" and op == "broadcast":
            detail = "Reducer::rebuild_buckets -> sync_bucket_indices (C++)"
        elif src in ("_sync_params_and_buffers", "_distributed_broadcast_coalesced"):
            detail = "one flat tensor per dtype (bucket of up to 250 MiB)"
        if phase.endswith("backward") and op == "all_reduce":
            it = int(phase.split()[1])
            k = used.get(it, 0)
            used[it] = k + 1
            hl = hooks.get(it, [])
            if k < len(hl):
                h = hl[k]
                ok = "" if h["numel"] == n_in else f" [hook saw {h['numel']}!]"
                detail = (f"bucket {h['index']}: {len(h['params'])} tensors, first "
                          f"{h['params'][0]}, last {h['params'][-1]}{ok}")
            else:
                detail = f"bucket #{k} (no hook log)"
        rows.append((phase, op, DTYPE_NAMES.get(dt, dt), n_in,
                     n_in * DTYPE_BYTES.get(dt, 0), src, detail))
    return rows


def print_report(results, opts):
    r0 = results[0]
    ws = len(results)
    print(f"torch {r0['torch']}, torchvision {r0['torchvision']}, backend gloo, CPU, "
          f"world size {ws}, ResNet-34 (weights=None), batch {opts['batch']}x3x"
          f"{opts['image_size']}x{opts['image_size']}, {opts['iters']} iterations, "
          f"comm hook: {'none (built-in all-reduce)' if opts['no_hook'] else 'logging + allreduce_hook'}")
    nparam = sum(n for _, _, n in r0["params"])
    fbuf = sum(n for _, d, n in r0["buffers"] if d == "float32")
    ibuf = [(n, c) for n, d, c in r0["buffers"] if d != "float32"]
    print(f"model: {len(r0['params'])} parameter tensors, {nparam} elements "
          f"({nparam * 4} B float32); buffers: {fbuf} float32 elements ({fbuf * 4} B), "
          f"{len(ibuf)} non-float32 buffers ({sum(c for _, c in ibuf)} elements)")
    print()
    rows = rows_for(r0)
    hdr = ("#", "phase", "op", "dtype", "elements", "bytes", "source (innermost torch fn)", "detail")
    table = [hdr] + [(str(i + 1), p, o, d, str(n), str(b), s, det)
                     for i, (p, o, d, n, b, s, det) in enumerate(rows)]
    widths = [max(len(r[c]) for r in table) for c in range(len(hdr) - 1)]
    print(f"rank 0: {len(rows)} collectives")
    for r in table:
        line = "  " + "  ".join(r[c].ljust(widths[c]) if c in (1, 2, 3, 6) else
                                r[c].rjust(widths[c]) for c in range(len(hdr) - 1))
        print((line + ("  " + r[-1] if r[-1] else "")).rstrip())
    print()
    key0 = [(p, o, d, n) for p, o, d, n, _, _, _ in rows]
    for r in results[1:]:
        k = [(p, o, d, n) for p, o, d, n, _, _, _ in rows_for(r)]
        same = "same sequence as rank 0" if k == key0 else "DIFFERS from rank 0"
        print(f"rank {r['rank']}: {len(k)} collectives, {same} (phase, op, dtype, elements)")
        if k != key0:
            for i, (a, b) in enumerate(zip(key0, k)):
                if a != b:
                    print(f"  first difference at #{i + 1}: {a} vs {b}")
                    break
    print()
    # phase summary
    print("per phase (rank 0):")
    summary = {}
    order = []
    for p, o, d, n, b, s, _ in rows:
        if p not in summary:
            summary[p] = []
            order.append(p)
        summary[p].append(f"{o} {d} {n} el ({b} B)")
    for label, _ in r0["marks"]:
        items = summary.get(label, [])
        print(f"  {label}: " + ("; ".join(items) if items else "none"))
    print()
    # buckets
    if r0["hook_log"]:
        print("gradient buckets seen by the comm hook (rank 0), in all-reduce order:")
        for h in r0["hook_log"]:
            line = (f"  iter {h['iteration']} bucket {h['index']}: {h['numel']} {h['dtype']} "
                    f"({h['numel'] * 4} B), {len(h['params'])} tensors, first "
                    f"{h['params'][0]} ... last {h['params'][-1]}")
            print(line)
            if opts["names"]:
                print("    " + ", ".join(h["params"]))
        print()
    # gradient-ready order
    by_it = {}
    for it, n in r0["ready"]:
        by_it.setdefault(it, []).append(n)
    for it, seq in sorted(by_it.items()):
        pos = {n: i for i, n in enumerate(seq)}
        bns = sorted({n.rsplit(".", 1)[0] for n in seq if n.endswith(".bias")
                      and n.rsplit(".", 1)[0] + ".weight" in pos})
        w_first = sum(1 for m in bns if pos[m + ".weight"] < pos[m + ".bias"])
        b_first = [m for m in bns if pos[m + ".bias"] < pos[m + ".weight"]]
        print(f"gradient-ready order, iter {it} (post-accumulate-grad hooks, rank 0): "
              f"{len(seq)} tensors, first {seq[0]}, {seq[1]}, {seq[2]} ... last {seq[-1]}; "
              f"modules with weight+bias: {len(bns)}, weight ready before bias in "
              f"{w_first}, bias before weight in {len(b_first)} {b_first}")
        if opts["names"]:
            print("    " + ", ".join(seq))
    rev = [n for n, _, _ in reversed(r0["params"])]
    seq1 = by_it.get(1, [])
    print(f"iter-1 ready order == reverse registration order: {seq1 == rev}")
    if seq1 != rev:
        diffs = [i for i, (a, b) in enumerate(zip(seq1, rev)) if a != b]
        print(f"  differs at {len(diffs)} positions, first: ready {seq1[diffs[0]]} vs "
              f"reverse-registration {rev[diffs[0]]}" if diffs else "")
    its = sorted({h["iteration"] for h in r0["hook_log"]})
    for it in its[1:]:
        flat = [n for h in r0["hook_log"] if h["iteration"] == it for n in h["params"]]
        print(f"iter-{it} buckets' tensor order (comm hook) == iter-1 gradient-ready "
              f"order: {flat == seq1}")
    print()
    print("DDP logging data (rank 0) after each iteration:")
    for it, d in r0["logging_data"].items():
        print(f"  iter {it}: " + ", ".join(f"{k}={v}" for k, v in d.items()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--iters", type=int, default=3)
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--image-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=1, help="torch threads per rank")
    ap.add_argument("--no-hook", action="store_true",
                    help="no comm hook: DDP's built-in all-reduce (no bucket names)")
    ap.add_argument("--names", action="store_true", help="print every name per bucket")
    ap.add_argument("--json", help="write the raw per-rank records to this file")
    args = ap.parse_args()
    try:
        import torch.multiprocessing as mp
    except ImportError:
        sys.exit("this script needs torch and torchvision (see its docstring); "
                 "the project itself does not")
    os.environ.setdefault("TORCH_FR_BUFFER_SIZE", "20000")
    opts = {"iters": args.iters, "batch": args.batch, "image_size": args.image_size,
            "threads": args.threads, "no_hook": args.no_hook, "names": args.names}
    with tempfile.TemporaryDirectory() as outdir:
        mp.spawn(worker, args=(args.world_size, free_port(), outdir, opts),
                 nprocs=args.world_size, join=True)
        results = []
        for r in range(args.world_size):
            with open(os.path.join(outdir, f"rank{r}.json")) as f:
                results.append(json.load(f))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"options": opts, "ranks": results}, f, indent=1)
    print_report(results, opts)


if __name__ == "__main__":
    main()
