/*
 * seqread.h - one thread reading memory in address order, at the rate one
 * core can stream it (lab-04's read bandwidth, 04.3).
 *
 * Why a module and not a plain loop: one thread's DRAM rate is the lines
 * it keeps in flight divided by the latency, and an out-of-order core
 * keeps only as many lines in flight as its reorder window and load queue
 * hold loads for.  A loop of one 8-byte load and add per word (what a
 * compiler makes of `s += w[i]`) spends 8 loads and about 20 instructions
 * on a 64-byte line and reaches fewer lines ahead than lmbench's bw_mem
 * rd (4 loads per line, each folded into its add, in about 4 instructions).  seqread_sum reads
 * every word with the widest loads the CPU has (AVX2: 2 per line, SSE2:
 * 4), each folded into an add, 4 lines per loop turn.  The kernel is
 * chosen at run time (CPUID), so one binary runs on any x86-64, an
 * emulator's CPU included; other architectures get a plain unrolled loop.
 *
 * Units: bytes, seconds, GB/s = 1e9 B/s.
 */
#ifndef DMALAB_SEQREAD_H
#define DMALAB_SEQREAD_H

#include <stdint.h>

#include "lab.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SEQREAD_ALIGN 64  /* buf's alignment (a cache line) */
#define SEQREAD_CHUNK 256 /* bytes must be a multiple of this: one loop turn */

/*
 * The sum (mod 2^64) of the 64-bit words of buf[0, bytes): every byte is
 * read once, in address order.  buf aligned to SEQREAD_ALIGN, bytes a
 * multiple of SEQREAD_CHUNK (a caller rounds its buffer down); 0 for
 * bytes 0.  The sum does not depend on the kernel.
 */
uint64_t seqread_sum(const void *buf, uint64_t bytes);

/* The kernel seqread_sum uses here: "avx2", "sse2" or "c". */
const char *seqread_kernel(void);

/*
 * seqread_sum with the kernel named ("avx2", "sse2", "c"), for the tests:
 * 0 and *sum, or -1 with errno ENOTSUP where that kernel cannot run.
 */
int seqread_sum_kernel(const char *kernel, const void *buf, uint64_t bytes, uint64_t *sum);

/*
 * The series `name` (static string) of one thread reading buf[0, bytes):
 * lab_measure (cfg as its, NULL for the defaults) of samples of one
 * seqread_sum pass each, into *rate in GB/s (1e9 B/s) of `bytes` (rounded
 * down to SEQREAD_CHUNK, as the pass reads).
 */
void seqread_rate(struct lab *L, const char *name, const void *buf, uint64_t bytes,
		  const struct lab_measure_cfg *cfg, struct lab_stats *rate);

/*
 * Bytes of the last-level cache that CPU `cpu` sees, from
 * ROOT/devices/system/cpu/cpuN/cache/indexK (the highest level with a
 * unified or data cache; "32768K" -> 33554432).  ROOT is "/sys" or a
 * fixture tree.  0 when sysfs does not say.
 */
uint64_t seqread_llc_bytes(const char *root, int cpu);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_SEQREAD_H */
