"""fleet_gen.py - synthetic node results for the compare tests (test-compare.sh).

usage: fleet_gen.py TEMPLATE.json OUTDIR N [--seed S] [--noise F]
                    [--bad-h2d I] [--bad-thp I] [--fast I] [--drift I]
                    [--gpu-name NAME] [--prefix P]

Writes OUTDIR/<prefix>-000.json ... one results.json per node, each a copy of
TEMPLATE (a real-shaped dmalab-results/1 document) with its own hostname and
GPU uuid and small noise on every measured figure: each timed claim's got
(with its got_lo/got_hi) and each rate/time/ratio lab fact is multiplied by
1 + u, u uniform in [-F, F] (F = 0.005 by default), drawn per node and
figure from a generator seeded by S and the node's number, so the same
arguments always write the same files.  Exact observations (errno, counts,
bytes) are left as they are: they do not vary between good nodes.

Planted faults, each on one node:
  --bad-h2d I  node I's host-to-GPU copies run 30 % slow (lab-02's and
               lab-08's h2d_*_gbs facts, 02.1-02.3, lab-11's pinned load) and
               its GPU 0 link reads Gen4 while its maximum is Gen5; the claims
               the slower link breaks (02.3 reaches the link, 02.4, 11.5) fail
  --bad-thp I  node I runs with THP "never" and its lab-04 pointer chase at
               256 MiB is 40 % slower (the latency fact and 04.1's ratio)
Changes that are not faults (compare's notes and its --either rule):
  --fast I     node I's lab-04 chase at 256 MiB is 30 % faster (the latency
               fact and 04.1's ratio lower): better, not bad
  --drift I    node I's pageable copies (lab-02's h2d_ and d2h_pageable_gbs)
               are 5 % slow: outside a +-2 % spread, within P = 10 %
--gpu-name NAME renames every GPU (a node of another model, for the refusals).
Python 3 standard library only.
"""
import argparse
import copy
import json
import os
import random
import sys

TIMED_UNITS = {"GB/s", "GiB/s", "ns", "us", "ms", "s", "ms/GiB", "TFLOP/s", "x", "%"}


def scale_claim(c, k):
    for key in ("got", "got_lo", "got_hi"):
        if isinstance(c.get(key), (int, float)) and not isinstance(c.get(key), bool):
            c[key] = c[key] * k


def add_noise(doc, rng, noise):
    for lab in doc["labs"]:
        for c in lab.get("claims") or []:
            if "got_lo" in c and c.get("unit") in TIMED_UNITS:
                scale_claim(c, 1 + rng.uniform(-noise, noise))
        for f in (lab.get("facts") or {}).values():
            if isinstance(f, dict) and f.get("unit") in TIMED_UNITS and \
                    isinstance(f.get("value"), (int, float)):
                f["value"] *= 1 + rng.uniform(-noise, noise)


def lab(doc, lab_id):
    return next((l for l in doc["labs"] if l.get("id") == lab_id), {"claims": [], "facts": {}})


def claim(doc, claim_id):
    return next((c for l in doc["labs"] for c in l.get("claims") or [] if c["id"] == claim_id),
                {})


def plant_slow_h2d(doc):
    """30 % slower host-to-GPU copies behind a link trained down to Gen4."""
    for lab_id in ("02", "08"):
        for name, f in (lab(doc, lab_id).get("facts") or {}).items():
            if name.startswith("h2d_") and isinstance(f, dict) and f.get("unit") == "GB/s":
                f["value"] *= 0.7
    pct = lab(doc, "02").get("facts", {}).get("h2d_pinned_pct_of_link")
    if isinstance(pct, dict):
        pct["value"] *= 0.7
    for cid in ("02.1", "02.2", "02.3"):
        scale_claim(claim(doc, cid), 0.7)
    for cid in ("02.4", "11.5"):
        scale_claim(claim(doc, cid), 1 / 0.7)
    load = lab(doc, "11").get("facts", {}).get("load16_pinned_ms")
    if isinstance(load, dict):
        load["value"] /= 0.7
    for cid in ("02.3", "02.4", "11.5"):
        if claim(doc, cid):
            claim(doc, cid)["status"] = "fail"
    gpu = doc["machine"]["gpus"][0]
    gpu["pcie_gen_cur"] = 4
    facts = lab(doc, "02").get("facts", {})
    if isinstance(facts.get("pcie_gen_cur"), dict):
        facts["pcie_gen_cur"]["value"] = 4


def plant_thp_never(doc):
    """THP never, and the chase over 256 MiB pays for it."""
    doc["machine"]["thp"] = "never"
    for lab_id in ("05", "08"):
        facts = lab(doc, lab_id).get("facts", {})
        if "thp_enabled" in facts:
            facts["thp_enabled"] = "never"
    scale_chase(doc, 1.4)


def scale_chase(doc, k):
    """Lab-04's chase over 256 MiB (the fact and 04.1's ratio) times k."""
    f = lab(doc, "04").get("facts", {}).get("latency_256MiB_ns")
    if isinstance(f, dict):
        f["value"] *= k
    scale_claim(claim(doc, "04.1"), k)


def plant_drift(doc):
    """Pageable copies 5 % slow: a small move, no fault."""
    for name in ("h2d_pageable_gbs", "d2h_pageable_gbs"):
        f = lab(doc, "02").get("facts", {}).get(name)
        if isinstance(f, dict):
            f["value"] *= 0.95


def node(template, i, args):
    doc = copy.deepcopy(template)
    rng = random.Random(args.seed * 100003 + i)
    m = doc["machine"]
    m["hostname"] = "%s-%03d" % (args.prefix, i)
    for g, gpu in enumerate(m.get("gpus") or []):
        gpu["uuid"] = "GPU-%08x-%04x-4000-8000-%012x" % (args.seed, i, g)
        if args.gpu_name:
            gpu["name"] = args.gpu_name
    doc["started"] = "2026-12-01T%02d:%02d:00Z" % (i // 60 % 24, i % 60)
    add_noise(doc, rng, args.noise)
    if i == args.bad_h2d:
        plant_slow_h2d(doc)
    if i == args.bad_thp:
        plant_thp_never(doc)
    if i == args.fast:
        scale_chase(doc, 0.7)
    if i == args.drift:
        plant_drift(doc)
    return doc


def main(argv):
    p = argparse.ArgumentParser(description="synthetic node results for test-compare.sh")
    p.add_argument("template")
    p.add_argument("outdir")
    p.add_argument("n", type=int)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--noise", type=float, default=0.005)
    p.add_argument("--bad-h2d", type=int, default=-1)
    p.add_argument("--bad-thp", type=int, default=-1)
    p.add_argument("--fast", type=int, default=-1)
    p.add_argument("--drift", type=int, default=-1)
    p.add_argument("--gpu-name")
    p.add_argument("--prefix", default="gpu-node")
    args = p.parse_args(argv[1:])
    with open(args.template, encoding="utf-8") as f:
        template = json.load(f)
    os.makedirs(args.outdir, exist_ok=True)
    for i in range(args.n):
        path = os.path.join(args.outdir, "%s-%03d.json" % (args.prefix, i))
        with open(path, "w", encoding="utf-8") as f:
            json.dump(node(template, i, args), f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
