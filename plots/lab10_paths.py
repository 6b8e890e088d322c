"""lab-10: GB/s of each path from a file, boxes of every sample, beside the
device's own rate and the PCIe link's.  Without a GPU only the host paths
run (O_DIRECT and buffered reads into host memory), so the title says what
was measured: into host memory, or into GPU memory as well."""
import sys

import common as C
import kinds

NAME = "lab10_paths"
GPU_PATHS = ("posix_pageable", "odirect_pinned", "odirect_pinned_overlap", "cufile")


def draw(res, outdir, decl=None):
    lab = C.find_lab(res, decl["lab"] if decl else "10")
    decl = dict(decl or {"lab": "10", "name": NAME, "facts": ["device_read_gbs",
                                                              "pcie_theoretical_gbs"],
                         "series": ["raw_odirect_host", "buffered_host"] + list(GPU_PATHS),
                         "claims": ["10.1", "10.2", "10.3"]})
    gpu = [p for p in GPU_PATHS if C.claim_stats(lab, p)]
    decl["title"] = ("lab-10: GB/s from a file into GPU memory by path, vs the device and PCIe"
                     if gpu else "lab-10: GB/s from a file into host memory (no GPU path ran "
                     "here), vs the device")
    return kinds.draw_boxes(res, outdir, decl)


if __name__ == "__main__":
    sys.exit(C.main_one(NAME, draw))
