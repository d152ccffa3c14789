"""ResNet-50 v1.5's forward pass on the emulator, layer by layer (bench/run.py resnet50).

Every convolution of torchvision's resnet50 (53: the 7x7 stem, 16 bottlenecks of 1x1 - 3x3 - 1x1,
the 3x3 carrying the stride as in v1.5, and four 1x1 downsamples) runs as `cubekit kernel conv2d`
with its batch norm, ReLU and residual fused (timing-only), beside the unfused chain: the bare
convolution, then the vector kernels a framework without fusion runs (batch norm's mul and add
per channel, the residual add, the ReLU). The network's FC layer is a matmul with a fused bias; the
3x3/2 max pool after the stem and the global average pool before the FC layer run on the vector
unit (`cubekit kernel max_pool2d`, `global_avg_pool2d`), the same kernels in both chains, as is the
input image's TransData (NCHW -> NC1HWC0 on the vector unit); activations stay NC1HWC0 between layers.

    bench/run.py resnet50 [--batch 32] [--chips ascend910,ascend910b2,ascend950pr] [--resnet-check [--standard-only]]

--resnet-check runs each distinct layer once at batch 1 against the Halide reference instead of
timing it; --standard-only leaves the variants out (the ctest `resnet50.check` runs the standard
network's distinct layers on the 910B2). The variants are the seed article's on ResNet-50 tuning: the stem
replaced by three 3x3 convolutions, and every 1x1 convolution of the bottlenecks in 4 groups.
Activations are planned in GM by liveness (first fit over their live ranges), the article's
memory_optimize_level: peak GM bytes with and without reuse are printed.
"""

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Conv:
    def __init__(self, name, c, h, k, kernel, stride, pad, epilogue, groups=1, inputs=(), residual=None):
        self.name, self.c, self.h, self.k, self.kernel = name, c, h, k, kernel
        self.stride, self.pad, self.epilogue, self.groups = stride, pad, epilogue, groups
        self.inputs, self.residual = list(inputs), residual  # activation names it reads
        self.out_h = (h + 2 * pad - kernel) // stride + 1
        # A strided 1x1 downsample: the layer whose output it reads, which can write that output at
        # every stride-th row and column as a second output (CANN's strided-write fusion), so
        # that the downsample reads a quarter of the map as a stride-1 convolution.
        self.strided_read_of = None
        self.subsampled = 0  # set on the producer where run() takes that fusion

    def shape(self):
        return f"{self.c}x{self.h}x{self.h} -> {self.k}x{self.out_h}x{self.out_h}, {self.kernel}x{self.kernel}/{self.stride}" + (
            f" g{self.groups}" if self.groups > 1 else "")

    def key(self):
        return (self.c, self.h, self.k, self.kernel, self.stride, self.pad, tuple(self.epilogue), self.groups)


def network(deep_stem=False, grouped_1x1=False):
    """The convolutions in order, each naming the activations it reads; and the pooling between."""
    layers, pools = [], []
    g1 = 4 if grouped_1x1 else 1
    if deep_stem:  # three 3x3 convolutions in place of the 7x7 (the article's change 1)
        layers.append(Conv("stem.0", 3, 224, 32, 3, 2, 1, ["bn", "relu"], inputs=["image"]))
        layers.append(Conv("stem.1", 32, 112, 32, 3, 1, 1, ["bn", "relu"], inputs=["stem.0"]))
        layers.append(Conv("stem.2", 32, 112, 64, 3, 1, 1, ["bn", "relu"], inputs=["stem.1"]))
    else:
        layers.append(Conv("stem", 3, 224, 64, 7, 2, 3, ["bn", "relu"], inputs=["image"]))
    pools.append(("maxpool 3x3/2", layers[-1].name, ["max_pool2d", "--c", "64", "--h", "112", "--w", "112", "--kernel", "3",
                                                     "--stride", "2", "--pad", "1"]))
    x, c, h = "pool", 64, 56
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)], start=1):
        for b in range(blocks):
            s = stride if b == 0 else 1
            name = f"layer{stage}.{b}"
            shortcut = x
            if b == 0:
                layers.append(Conv(f"{name}.downsample", c, h, width * 4, 1, s, 0, ["bn"], groups=g1, inputs=[x]))
                if s > 1 and x != "pool":
                    layers[-1].strided_read_of = x
                shortcut = layers[-1].name
            layers.append(Conv(f"{name}.conv1", c, h, width, 1, 1, 0, ["bn", "relu"], groups=g1, inputs=[x]))
            layers.append(Conv(f"{name}.conv2", width, h, width, 3, s, 1, ["bn", "relu"], inputs=[layers[-1].name]))
            oh = layers[-1].out_h
            layers.append(Conv(f"{name}.conv3", width, oh, width * 4, 1, 1, 0, ["bn", "residual", "relu"], groups=g1,
                               inputs=[layers[-1].name], residual=shortcut))
            x, c, h = layers[-1].name, width * 4, oh
    pools.append(("global average pool", x, ["global_avg_pool2d", "--c", "2048", "--h", "7", "--w", "7"]))
    return layers, pools


def cubekit(build, args, may_fail=False):
    """The JSON report of a cubekit command (`may_fail`: a run that reports a failed check is kept)."""
    done = subprocess.run([os.path.join(build, "bin", "cubekit")] + args, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0 and not (may_fail and done.stdout.lstrip().startswith("{")):
        sys.exit(f"bench/run.py resnet50: `cubekit {' '.join(args)}` failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return json.loads(done.stdout)


def conv_args(layer, batch, chip, epilogue, subsampled=0):
    args = ["kernel", "conv2d", "--n", str(batch), "--c", str(layer.c), "--h", str(layer.h), "--w", str(layer.h),
            "--k", str(layer.k), "--kh", str(layer.kernel), "--kw", str(layer.kernel), "--stride", str(layer.stride),
            "--pad", str(layer.pad), "--groups", str(layer.groups), "--out", "f16", "--chip", chip, "--json"]
    return args + (["--epilogue", ",".join(epilogue)] if epilogue else []) + (
        ["--subsampled", str(subsampled)] if subsampled else [])


def reading_subsampled(layer):
    """The downsample as it runs on its producer's subsampled copy: a 1x1 stride-1 convolution of
    the map at every stride-th row and column."""
    h = (layer.h + layer.stride - 1) // layer.stride
    ds = Conv(layer.name, layer.c, h, layer.k, 1, 1, 0, layer.epilogue, groups=layer.groups, inputs=layer.inputs)
    return ds


def unfused_args(layer, batch, chip):
    """The vector kernels after a bare convolution: NCHW rows of one channel (batch norm's per-row
    scale and shift), the residual, the ReLU."""
    rows, cols = batch * layer.k, layer.out_h * layer.out_h
    base = ["--rows", str(rows), "--cols", str(cols), "--dtype", "f16", "--chip", chip, "--json", "--timing-only"]
    out = []
    for step in layer.epilogue:
        if step == "bn":
            out += [["kernel", "mul"] + base + ["--y-shape", f"{rows},1"], ["kernel", "add"] + base + ["--y-shape", f"{rows},1"]]
        elif step == "residual":
            out.append(["kernel", "add"] + base)
        else:
            out.append(["kernel", "relu"] + base)
    return out


def time_layer(build, layer, batch, chip, subsampled=0):
    fused = cubekit(build, conv_args(layer, batch, chip, layer.epilogue, subsampled) + ["--timing-only"])
    bare = cubekit(build, conv_args(layer, batch, chip, []) + ["--timing-only"])
    chain = [cubekit(build, a)["cycles"] for a in unfused_args(layer, batch, chip)]
    # The matmul of the same implicit GEMM (per group), A given as the im2col matrix in GM.
    g = layer.groups
    gemm = cubekit(build, ["kernel", "matmul", "--m", str(batch * layer.out_h * layer.out_h), "--n", str(layer.k // g),
                           "--k", str(layer.c // g * layer.kernel * layer.kernel), "--batch", str(g if g > 1 else 0),
                           "--out", "f16", "--chip", chip, "--json", "--timing-only"])
    # The network's input image arrives as NCHW: its TransData to NC1HWC0 runs on the vector unit.
    image = sum(c["cycles"] for c in fused.get("conversions", []) if c["tensor"] == "X" and c["direction"] == "in"
                and "image" in layer.inputs)
    return {"layer": layer.name, "shape": layer.shape(), "epilogue": ",".join(layer.epilogue), "cycles": fused["cycles"],
            "transdata_image": image,
            "mac_ratio": fused["ratios"]["mac_ratio"], "limiter": fused["roofline"]["limiter"],
            "unfused_cycles": bare["cycles"] + sum(chain), "conv_cycles": bare["cycles"], "gemm_cycles": gemm["cycles"],
            "c": layer.c}


def pool_args(pool, batch, chip):
    return ["kernel"] + pool[2] + ["--n", str(batch), "--chip", chip, "--json"]


def time_pool(build, pool, batch, chip):
    r = cubekit(build, pool_args(pool, batch, chip) + ["--timing-only"])
    return {"name": pool[0], "source": pool[1], "cycles": r["cycles"], "limiter": r["roofline"]["limiter"],
            "efficiency": r["roofline"]["efficiency"]}


def fc_cycles(build, batch, chip):
    r = cubekit(build, ["kernel", "matmul", "--m", str(batch), "--n", "1000", "--k", "2048", "--epilogue", "bias",
                        "--chip", chip, "--json", "--timing-only"])
    return r["cycles"]


def gm_plan(layers, batch):
    """Peak GM bytes of the activations (f16) without reuse (each its own buffer) and with it:
    each lives from its producer to its last reader and takes the lowest offset free over that
    range (first fit)."""
    stem_end = max(i for i, l in enumerate(layers) if l.name.startswith("stem"))
    size = {"image": batch * 3 * 224 * 224 * 2, "pool": batch * 64 * 56 * 56 * 2}
    live = {"image": [-1, 0], "pool": [stem_end, stem_end + 1]}
    for i, layer in enumerate(layers):
        size[layer.name] = batch * layer.k * layer.out_h * layer.out_h * 2
        live[layer.name] = [i, i]
        if layer.subsampled:  # its copy at every s-th row and column (strided_writes)
            h = (layer.out_h + layer.subsampled - 1) // layer.subsampled
            size[layer.name + ".copy"] = batch * layer.k * h * h * 2
            live[layer.name + ".copy"] = [i, i]
        for name in layer.inputs + ([layer.residual] if layer.residual else []):
            if layer.strided_read_of == name and layers[[l.name for l in layers].index(name)].subsampled:
                name += ".copy"
            live[name][1] = max(live[name][1], i)
    live[layers[stem_end].name][1] = stem_end + 1  # read by the max pool
    live[layers[-1].name][1] = len(layers)         # read by the average pool and the FC layer
    placed = []  # (offset, end, first, last)
    for name in sorted(size, key=lambda n: live[n][0]):
        first, last = live[name]
        clash = [(o, e) for o, e, f, l in placed if not (l < first or f > last)]
        for offset in sorted([0] + [e for _, e in clash]):
            if all(offset + size[name] <= o or offset >= e for o, e in clash):
                break
        placed.append((offset, offset + size[name], first, last))
    return sum(size.values()), max(e for _, e, _, _ in placed)


def run(build, batch, chips, check, variants_too=True):
    variants = {"standard": network(), "deep stem": network(deep_stem=True), "grouped 1x1": network(grouped_1x1=True),
                "both": network(deep_stem=True, grouped_1x1=True)}
    if check:
        return check_layers(build, variants["standard"][0] + (variants["both"][0] if variants_too else []),
                            variants["standard"][1], chips)
    results = {}
    for chip in chips:
        info = cubekit(build, ["chips", "--json"])
        clock = {c["name"]: c for c in (info if isinstance(info, list) else [info])}[chip]["clock_mhz"]
        for variant, (layers, pools) in variants.items():
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
                rows = list(pool.map(lambda l: time_layer(build, l, batch, chip), layers))
            strided = strided_writes(build, layers, rows, batch, chip)
            fc = fc_cycles(build, batch, chip)
            pooled = [time_pool(build, p, batch, chip) for p in pools]
            image = sum(r["transdata_image"] for r in rows)
            rest = fc + image + sum(p["cycles"] for p in pooled)  # the same kernels in both chains
            total = sum(r["cycles"] for r in rows) + rest
            unfused = sum(r["unfused_cycles"] for r in rows) + rest
            results[(chip, variant)] = {"rows": rows, "fc": fc, "total": total, "unfused": unfused, "clock": clock,
                                        "pools": pooled, "image": image, "gm": gm_plan(layers, batch), "strided": strided}
    print(report(results, batch))
    return 0


def strided_writes(build, layers, rows, batch, chip):
    """The strided-write fusion, taken per downsample where it makes the pair faster: its producer
    also writes the map at every stride-th row and column (conv2d --subsampled), and the downsample
    reads that as a 1x1 stride-1 convolution. `rows` (and the layers' flags) become the network's
    choice; returns both timings of every pair."""
    index = {l.name: i for i, l in enumerate(layers)}
    for layer in layers:  # the choice is per chip
        layer.subsampled = 0
    pairs = []
    for i, layer in enumerate(layers):
        if not layer.strided_read_of:
            continue
        p = index[layer.strided_read_of]
        producer, plain = layers[p], rows[i]
        writes = time_layer(build, producer, batch, chip, subsampled=layer.stride)
        reads = time_layer(build, reading_subsampled(layer), batch, chip)
        before = rows[p]["cycles"] + plain["cycles"]
        after = writes["cycles"] + reads["cycles"]
        taken = after < before
        pairs.append({"downsample": layer.name, "producer": producer.name, "producer_cycles": rows[p]["cycles"],
                      "producer_writing": writes["cycles"], "downsample_cycles": plain["cycles"],
                      "downsample_reading": reads["cycles"], "taken": taken,
                      "efficiency": plain["gemm_cycles"] / plain["conv_cycles"],
                      "efficiency_reading": reads["gemm_cycles"] / reads["conv_cycles"]})
        if not taken:
            continue
        producer.subsampled = layer.stride
        rows[p] = dict(writes, unfused_cycles=rows[p]["unfused_cycles"],
                       epilogue=rows[p]["epilogue"] + f",+1/{layer.stride} copy")
        # The unfused chain keeps reading the whole map (no fusion there).
        rows[i] = dict(reads, shape=plain["shape"] + f", reading {producer.name}'s copy", unfused_cycles=plain["unfused_cycles"])
    return pairs


def images_per_second(cycles, batch, clock_mhz):
    return batch / (cycles / (clock_mhz * 1e6))


def report(results, batch):
    out = [f"# ResNet-50 v1.5 forward, batch {batch} (timing-only; conv + BN + ReLU (+ residual) fused)\n"]
    for (chip, variant), r in results.items():
        if variant != "standard":
            continue
        out.append(f"## {chip}: per layer\n")
        out.append("| layer | shape | epilogue | cycles | mac_ratio | limiter | unfused cycles | fused / unfused | "
                   "bare conv | its GEMM as a matmul | conv / matmul efficiency |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|")
        for row in r["rows"]:
            out.append(f"| {row['layer']} | {row['shape']} | {row['epilogue']} | {row['cycles']} | {row['mac_ratio']:.3f} | "
                       f"{row['limiter']} | {row['unfused_cycles']} | {row['cycles'] / row['unfused_cycles']:.2f} | "
                       f"{row['conv_cycles']} | {row['gemm_cycles']} | {row['gemm_cycles'] / row['conv_cycles']:.2f} |")
        out.append(f"| fc | 2048 -> 1000 | bias | {r['fc']} | | | {r['fc']} | | | | |")
        out.append(f"| TransData | the NCHW image -> NC1HWC0 (vector unit) | | {r['image']} | | | {r['image']} | | | | |")
        for p in r["pools"]:
            out.append(f"| {p['name']} | after {p['source']} (vector unit) | | {p['cycles']} | | {p['limiter']} | "
                       f"{p['cycles']} | | | | |")
        wide = [row["gemm_cycles"] / row["conv_cycles"] for row in r["rows"] if row["c"] >= 64]
        out.append(f"\nConvolutions with C >= 64: conv / matmul efficiency from {min(wide):.2f} to {max(wide):.2f} "
                   f"(the matmul reads the im2col matrix, KH*KW times the feature map, from GM).")
        # The same with every downsample in its strided-write form, taken or not.
        copies = {q["downsample"]: q["efficiency_reading"] for q in r["strided"]}
        fused = [copies.get(row["layer"], row["gemm_cycles"] / row["conv_cycles"]) for row in r["rows"] if row["c"] >= 64]
        kept = [q["downsample"] for q in r["strided"] if not q["taken"]]
        out.append(f"With every strided downsample reading its producer's copy: from {min(fused):.2f} to {max(fused):.2f}"
                   + (f" (the table above has {', '.join(kept)} reading the whole map: that pair is faster)" if kept else "")
                   + ".\n")
        out.append("Strided-write fusion (the producer also writes its map at every 2nd row and column, the "
                   "downsample reads that as a 1x1 stride-1 convolution; taken where the pair is faster):\n")
        out.append("| downsample | producer | producer cycles: alone / writing the copy | downsample cycles: whole map / "
                   "the copy | pair | taken | downsample conv / matmul efficiency: whole map / the copy |")
        out.append("|---|---|---|---|---|---|---|")
        for q in r["strided"]:
            before, after = q["producer_cycles"] + q["downsample_cycles"], q["producer_writing"] + q["downsample_reading"]
            out.append(f"| {q['downsample']} | {q['producer']} | {q['producer_cycles']} / {q['producer_writing']} | "
                       f"{q['downsample_cycles']} / {q['downsample_reading']} | {before} -> {after} | "
                       f"{'yes' if q['taken'] else 'no'} | {q['efficiency']:.2f} / {q['efficiency_reading']:.2f} |")
        out.append("")
    out.append("## Network totals (convolutions, pooling, FC and the image's TransData)\n")
    out.append("| chip | variant | cycles | images/s | unfused images/s | peak GM, no reuse | peak GM, liveness reuse |")
    out.append("|---|---|---|---|---|---|---|")
    for (chip, variant), r in results.items():
        no_reuse, reuse = r["gm"]
        out.append(f"| {chip} | {variant} | {r['total']} | {images_per_second(r['total'], batch, r['clock']):.0f} | "
                   f"{images_per_second(r['unfused'], batch, r['clock']):.0f} | {no_reuse / 2**20:.1f} MiB | "
                   f"{reuse / 2**20:.1f} MiB |")
    return "\n".join(out) + "\n"


def check_layers(build, layers, pools, chips):
    """Each distinct layer (and both pools) once at batch 1 against Halide, checker-clean."""
    distinct = {}
    by_name = {l.name: l for l in layers}
    for layer in layers:
        distinct.setdefault(layer.key() + (0,), (layer, 0))
        if layer.strided_read_of:  # both sides of the strided-write fusion (strided_writes)
            producer = by_name[layer.strided_read_of]
            distinct.setdefault(producer.key() + (layer.stride,), (producer, layer.stride))
            ds = reading_subsampled(layer)
            distinct.setdefault(ds.key() + (0,), (ds, 0))
    jobs = [(layer, chip) for layer in list(distinct.values()) + pools for chip in chips]

    def one(job):
        layer, chip = job
        if isinstance(layer[0], str):  # a pool
            r = cubekit(build, pool_args(layer, 1, chip), may_fail=True)
            what = f"{layer[0]} after {layer[1]}"
        else:
            layer, subsampled = layer
            r = cubekit(build, conv_args(layer, 1, chip, layer.epilogue, subsampled), may_fail=True)
            what = f"{layer.name} {layer.shape()} {','.join(layer.epilogue)}" + (
                f" and its copy at stride {subsampled}" if subsampled else "")
        ok = r["check"]["pass"] and not r["diagnostics"]
        return f"{'ok  ' if ok else 'FAIL'} {chip} {what}", ok

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(one, jobs))
    for line, _ in results:
        print(line)
    failed = sum(not ok for _, ok in results)
    print(f"{len(results) - failed} of {len(results)} distinct layer runs match Halide and are checker-clean")
    return 1 if failed else 0


def main(build, batch, chips, check, variants_too=True):
    return run(build, batch, chips, check, variants_too)
