"""A SYNTHETIC results document for the tests only: made-up numbers in the
shape lab-02..05 write, so that the GPU figures' code runs in CI before a
results file from a GPU machine is committed as a fixture.  It is built in
memory (never committed) and marked synthetic in its machine record; no
figure made from it means anything about any machine.
"""
import random

KiB, MiB, GiB = 1024, 1024 ** 2, 1024 ** 3


def stats(name, unit, median, spread=0.03, n=7, rng=random.Random(1)):
    samples = [median * (1 + rng.uniform(-spread, spread)) for _ in range(n)]
    samples[0] = median
    srt = sorted(samples)
    return {"name": name, "unit": unit, "n": n, "warmup": 2, "median": srt[n // 2],
            "min": srt[0], "max": srt[-1], "mean": sum(samples) / n, "cv": spread / 2,
            "noisy": False, "too_short": False, "samples": samples}


def series(name, unit, x_unit, xs, fn):
    return {"x_unit": x_unit, "y_unit": unit,
            "points": [{"x": x, "stats": stats(name, unit, fn(x))} for x in xs]}


def claim(cid, status="pass", st=()):
    return {"id": cid, "question": "ch1.Q2", "text": "synthetic claim " + cid,
            "status": status, "op": "ge", "got": 1.0, "want": 1.0, "unit": "x",
            "reason": None, "detail": None, "note": None, "stats": list(st)}


def lab(lab_id, title, claims, facts, ser):
    return {"id": lab_id, "title": title, "status": "pass", "skip": None, "error": None,
            "claims": claims, "facts": facts, "series": ser, "duration_s": 1.0}


def sweep_rate(peak, half_bytes):
    return lambda x: peak * x / (x + half_bytes)


def lab02():
    sizes = [4 * KiB * 2 ** i for i in range(15)]
    peaks = {"pageable": 9.0, "pinned": 55.0, "registered": 54.0, "wc": 53.0}
    ser = {}
    for kind, peak in peaks.items():
        for d in ("h2d", "d2h"):
            ser["%s_%s" % (d, kind)] = series(d + "_" + kind, "GB/s", "bytes", sizes,
                                              sweep_rate(peak, 256 * KiB))
    ser["host_memcpy"] = series("host_memcpy", "GB/s", "bytes", [sizes[-1]], lambda x: 11.0)
    facts = {"pcie_gen_max": {"value": 5, "unit": ""},
             "pcie_width_max": {"value": 16, "unit": "lanes"},
             "pcie_theoretical_gbs": {"value": 63.0, "unit": "GB/s"},
             "gpu_pci_bus_id": "0000:01:00.0", "host_memcpy_gbs": {"value": 11.0, "unit": "GB/s"}}
    return lab("02", "pinned vs pageable copies", [claim("02.1")], facts, ser)


def lab03():
    sizes = [4 * KiB, 64 * KiB, MiB, 16 * MiB, 256 * MiB]
    ser = {}
    copy_s = {"pageable": 9e9, "pinned": 50e9, "pinned_idle": 50e9, "pageable_queued": 9e9}
    call_share = {"pageable": 1.0, "pinned": 0.0001, "pinned_idle": 0.0002, "pageable_queued": 0.9}
    for way, rate in copy_s.items():
        ser["copy_" + way] = series("copy_" + way, "s", "bytes", sizes,
                                    lambda x, r=rate: 5e-6 + x / r)
        ser["call_" + way] = series("call_" + way, "s", "bytes", sizes,
                                    lambda x, r=rate, k=call_share[way]: 3e-6 + k * x / r)
    st = [stats("overlap_kernel", "s", 0.020), stats("overlap_copy_pinned", "s", 0.0054),
          stats("overlap_both_pinned_copy_first", "s", 0.0205),
          stats("overlap_both_pinned_kernel_first", "s", 0.0203)]
    loops = [stats("loop_copy_pinned", "s", 170e-6), stats("loop_copy_pageable", "s", 900e-6)]
    facts = {"race_rewrite_s": {"value": 0.0021, "unit": "s"},
             "race_torn_words": {"value": 2097152, "unit": "words"},
             "race_spin_s": {"value": 0.020, "unit": "s"},
             "loop_step_pinned_s": {"value": 260e-6, "unit": "s"},
             "loop_step_pinned_nocopy_s": {"value": 250e-6, "unit": "s"},
             "loop_hidden_pinned": {"value": 0.94, "unit": "fraction"},
             "loop_step_pageable_s": {"value": 1150e-6, "unit": "s"},
             "loop_step_pageable_nocopy_s": {"value": 250e-6, "unit": "s"},
             "loop_hidden_pageable": {"value": 0.0, "unit": "fraction"}}
    return lab("03", "async copies", [claim("03.3", st=st), claim("03.7", st=loops)], facts, ser)


def lab04():
    sizes = [4 * KiB * 2 ** i for i in range(18)]

    def staircase(extra):
        return lambda x: (1.5 if x <= 32 * KiB else 5 if x <= MiB else 20 if x <= 32 * MiB
                          else 110) + (extra if x > 32 * MiB else 0)
    ser = {"latency_node0": series("latency_local", "ns", "bytes", sizes, staircase(0)),
           "latency_node1": series("latency_remote", "ns", "bytes", sizes, staircase(70))}
    st = [stats("latency_large_remote", "ns", 180), stats("latency_large_local", "ns", 110)]
    bw = [stats("read_local", "GB/s", 16.0), stats("read_remote", "GB/s", 12.5)]
    facts = {"cpu_node": {"value": 0, "unit": ""}}
    return lab("04", "NUMA", [claim("04.2", st=st), claim("04.3", st=bw)], facts, ser)


def lab05():
    region = 1 * GiB
    t64 = 10e-6 * region / (64 * KiB) * 1.3
    demand = [stats("um_demand_4k", "s", t64 * 1.1, 0.1), stats("um_demand_64k", "s", t64, 0.1),
              stats("um_demand_2m", "s", t64 * 0.9, 0.1)]
    us64 = dict(demand[1])
    k = 1e6 / (region / (64 * KiB))
    us64.update({"name": "gpu_us_per_64k", "unit": "us", "median": demand[1]["median"] * k,
                 "min": demand[1]["min"] * k, "max": demand[1]["max"] * k,
                 "samples": [s * k for s in demand[1]["samples"]]})
    claims = [claim("05.1", st=[stats("cpu_us_per_page", "us", 0.9, 0.2)]),
              claim("05.2", st=[us64]), claim("05.3", st=demand),
              claim("05.5", st=[demand[0], stats("um_prefetch_then_4k", "s", 0.045)])]
    facts = {"cpu_thp_us_per_4k": {"value": 0.15, "unit": "us"},
             "um_4gib_extrapolated_ms": {"value": t64 * 4e3, "unit": "ms"}}
    return lab("05", "page faults", claims, facts, {})


def lab07():
    sizes = [64 * KiB * 2 ** i for i in range(8)]
    ser = {"free_drop_by_request": series("free_drop_by_request", "MiB", "bytes", sizes,
                                          lambda b: 2.0 * -(-b // (2 * MiB)))}
    facts = {"granule_mib": {"value": 2.0, "unit": "MiB"},
             "tiny_drop_mib": {"value": 2.0, "unit": "MiB"}}
    claims = [claim("07.4", st=[stats("malloc_free_2mib", "us", 87.0),
                                stats("pool_2mib_threshold_max", "us", 1.2)]),
              claim("07.5", st=[stats("next_2mib_threshold_default", "us", 48.5),
                                stats("next_2mib_threshold_max", "us", 1.2)])]
    return lab("07", "the device allocator", claims, facts, ser)


def lab08():
    sets = [MiB * 4 ** i for i in range(6)]
    ser = {"chase_4k": series("chase_4k", "ns", "bytes", sets,
                              lambda b: 5 + 75 * b / (b + 64 * MiB)),
           "chase_2m": series("chase_2m", "ns", "bytes", sets,
                              lambda b: 2 + 40 * b / (b + 256 * MiB))}
    claims = [claim("08.3", st=[stats("register_4k_ms_per_gib", "ms/GiB", 400.0),
                                stats("register_2m_ms_per_gib", "ms/GiB", 160.0)])]
    return lab("08", "huge pages", claims, {}, ser)


def lab09():
    sizes = [MiB * 4 ** i for i in range(6)]
    ser, facts = {}, {"gpu_count": {"value": 2, "unit": ""}}
    for a, b in ((0, 1), (1, 0)):
        for path, peak in (("peer", 390.0), ("host_path", 38.0)):
            name = "p2p_%d_to_%d_%s" % (a, b, path)
            ser[name] = series(name, "GB/s", "bytes", sizes, sweep_rate(peak, 4 * MiB))
        facts["pair_%d_%d_peer_gbs" % (a, b)] = {"value": 390.0, "unit": "GB/s"}
        facts["pair_%d_%d_host_gbs" % (a, b)] = {"value": 38.0, "unit": "GB/s"}
    return lab("09", "GPU to GPU", [claim("09.1")], facts, ser)


def lab10():
    names = ["raw_odirect_host", "buffered_host", "posix_pageable", "odirect_pinned",
             "odirect_pinned_overlap", "cufile"]
    claims = [claim("10.1", st=[stats(n, "GB/s", 1.0 + 0.05 * i) for i, n in enumerate(names)])]
    facts = {"device_read_gbs": {"value": 1.0, "unit": "GB/s"},
             "pcie_theoretical_gbs": {"value": 63.0, "unit": "GB/s"}}
    return lab("10", "storage to GPU", claims, facts, {})


def lab11():
    grid = [16 * 2 ** i for i in range(9)]
    per_token = 327680

    def added(n):  # free up to the ridge of about 160 tokens, then 2 x 70e9 FLOP a token
        return max(1e-4, (n - 160) * 2 * 70e9 / 780e12)
    ser = {"swap_paged_s": series("swap_paged_s", "s", "tokens", grid, lambda n: 3.1e-5 * n),
           "recompute_batched_s": series("recompute_batched_s", "s", "tokens", grid, added),
           "step_with_recompute_s": series("step_with_recompute_s", "s", "tokens", grid,
                                           lambda n: 0.036 + added(n)),
           "chapter_swap_s": series("chapter_swap_s", "s", "tokens", grid + [32768],
                                    lambda n: n * per_token / 50e9),
           "chapter_recompute_s": series("chapter_recompute_s", "s", "tokens", grid + [32768],
                                         lambda n: 2 * 70e9 * n / 600e12)}
    facts = {"crossover_tokens": {"value": 190.0, "unit": "tokens"},
             "crossover_lo_tokens": {"value": 180.0, "unit": "tokens"},
             "crossover_hi_tokens": {"value": 205.0, "unit": "tokens"},
             "context_tokens": {"value": 32768, "unit": "tokens"},
             "swap_full_paged_s": {"value": 1.0, "unit": "s"},
             "swap_full_onecopy_s": {"value": 0.195, "unit": "s"}}
    return lab("11", "swap back or recompute", [claim("11.4")], facts, ser)


def new_lab():
    """The record of a lab plots/ has never heard of, lab-90."""
    sizes = [4 * KiB * 2 ** i for i in range(8)]
    ser = {"scan_seq": series("scan_seq", "GB/s", "bytes", sizes, sweep_rate(20.0, 64 * KiB)),
           "scan_rand": series("scan_rand", "GB/s", "bytes", sizes, sweep_rate(4.0, 64 * KiB))}
    st = [stats("step_small", "ns", 80), stats("step_large", "ns", 300)]
    return lab("90", "a new lab", [claim("90.1", st=st)],
               {"peak_gbs": {"value": 22.0, "unit": "GB/s"}}, ser)


def results():
    return {"schema": "dmalab-results/1", "dmalab": {"version": "synthetic"},
            "command": "synthetic (plots/tests/synth.py)", "started": "2000-01-01T00:00:00Z",
            "machine": {"kernel": "synthetic", "hostname": "SYNTHETIC-NOT-A-MEASUREMENT",
                        "driver_version": "synthetic",
                        "gpus": [{"name": "synthetic GPU", "bdf": "0000:01:00.0",
                                  "pcie_gen_max": 5, "pcie_width_max": 16,
                                  "pcie_max_rate_gbs": 63.0}]},
            "labs": [lab02(), lab03(), lab04(), lab05(), lab07(), lab08(), lab09(), lab10(),
                     lab11()],
            "questions": [{"id": "ch1.Q2", "claims": ["02.1"], "status": "confirmed"}],
            "totals": {}, "status": "pass"}
