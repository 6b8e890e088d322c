"""lab-10: GB/s of each path from a file, boxes of every sample, beside the
device's own rate and the PCIe link's.  Without a GPU only the host paths
run (O_DIRECT and buffered reads into host memory), so the title says what
was measured: into host memory, or into GPU memory as well."""
import common as C
import kinds

GPU_PATHS = ("posix_pageable", "odirect_pinned", "odirect_pinned_overlap", "cufile")


def draw(res, outdir, decl):
    lab = C.find_lab(res, decl["lab"])
    gpu = [p for p in GPU_PATHS if C.claim_stats(lab, p)]
    title = (C.T("fig.lab10_paths.gpu", "lab-10: GB/s from a file into GPU memory by path, "
                 "vs the device and PCIe") if gpu else
             C.T("fig.lab10_paths.host", "lab-10: GB/s from a file into host memory (no GPU "
                 "path ran here), vs the device"))
    return kinds.draw_boxes(res, outdir, dict(decl, title=title))
