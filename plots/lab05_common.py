"""What both lab-05 figures need: the managed region's size and the timed
GPU cases, each as statistics in seconds for the whole region."""
import common as C

PAGE = 4 * C.KiB
BIG_PAGE = 64 * C.KiB
# (statistics name, label): the GPU cases lab-05 times over the whole region
GPU_CASES = [("um_demand_4k", "GPU demand faults,\nstride 4 KiB"),
             ("um_demand_64k", "GPU demand faults,\nstride 64 KiB"),
             ("um_demand_2m", "GPU demand faults,\nstride 2 MiB"),
             ("um_prefetch_then_4k", "cudaMemPrefetchAsync\n+ kernel"),
             ("um_resident_4k", "already on the GPU\n(no fault)")]


def region_bytes(lab):
    """Bytes of the managed region the GPU cases touched, or None.

    From the fact when the lab records it; else from the 64 KiB-stride
    time and its per-64 KiB figure (both medians of the same samples); else
    from the um_gb_s series, where every rate sample is bytes / a time sample.
    """
    v = C.fact(lab, "um_region_bytes")
    if v:
        return v
    t, us = C.claim_stats(lab, "um_demand_64k"), C.claim_stats(lab, "gpu_us_per_64k")
    if t and us and us["median"] > 0:
        return round(t["median"] * 1e6 / us["median"]) * BIG_PAGE
    for x, rate in C.series(lab, "um_gb_s"):
        name = {PAGE: "um_demand_4k", BIG_PAGE: "um_demand_64k"}.get(int(x))
        secs = C.claim_stats(lab, name) if name else None
        if secs:
            return round(rate["max"] * 1e9 * secs["min"] / PAGE) * PAGE
    return None


def gpu_cases(lab):
    """[(name, label, stats in s)] of the GPU cases recorded, and the missing names."""
    got, missing = [], []
    for name, label in GPU_CASES:
        st = C.claim_stats(lab, name)
        (got.append((name, label, st)) if st else missing.append(name))
    return got, missing
