/*
 * buffer.h - host buffers for the labs (page or huge-page aligned, touched
 * or not), a seeded data pattern, and a registry that gives every buffer
 * back on every path.  The CUDA kinds are in lab_buffers_cuda.h.
 *
 * Why a registry: a lab that stops half-way (lab_error exits 99) must still
 * give back what it holds, and pinned and device memory go back to the
 * driver only through the CUDA calls.  Each allocation pushes an "undo"
 * keyed by its first byte; buf_free() runs a buffer's undos, newest first;
 * at exit the rest run, in the process that made them.
 *
 * Errors: NULL or -1 with errno set, or lab_error() in the *_or_die forms.
 */
#ifndef DMALAB_BUFFER_H
#define DMALAB_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

/*
 * Word i of the pattern `seed`.  The constant is odd, so two seeds differ at
 * every index: a word left from the last fill (seed s) never passes for the
 * next (s + 1).  No multiply per word: a fill runs at the speed of stores.
 */
#ifdef __CUDACC__
#define BUF_HOST_DEVICE __host__ __device__
#else
#define BUF_HOST_DEVICE
#endif
static inline BUF_HOST_DEVICE uint32_t buf_pattern_word(uint32_t seed, uint64_t i)
{
	return (seed * 0x9E3779B1u) ^ (uint32_t)i;
}

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Host memory ---- */

/* Flags of buf_map (or them together). */
#define BUF_TOUCH     0x01u /* every page faulted in now, zeroed: no page faults later */
#define BUF_HUGE      0x02u /* madvise(MADV_HUGEPAGE): THP where "madvise" mode */
#define BUF_NOHUGE    0x04u /* madvise(MADV_NOHUGEPAGE): 4 KiB pages only */
#define BUF_NORESERVE 0x08u /* MAP_NORESERVE: no swap space is reserved */
#define BUF_UNTRACKED 0x10u /* not in the registry: the caller munmaps (p, bytes) */

/*
 * A private anonymous mapping of `bytes` whose first byte lies on an `align`
 * boundary (0: the page size; 2 MiB so that THP can back it from its first
 * byte).  A refused madvise is not an error: its errno goes to
 * *advice_errno (may be NULL).  Returns the buffer (tracked), or NULL.
 */
void *buf_map(uint64_t bytes, uint64_t align, unsigned flags, int *advice_errno);
/*
 * First touch of `bytes` at p (not yet written), so that every page is
 * resident: MADV_POPULATE_WRITE (a memset where refused), or from 64 MiB
 * up parts of whole 2 MiB on up to 8 threads (buf_touch_threads).  A fault
 * takes memory from the faulting CPU's node, so the threads share the work
 * only when the caller's CPUs are all on one NUMA node.
 */
void buf_touch(void *p, uint64_t bytes);
/* buf_touch on `threads` (at most 8; under 2: one thread asking the kernel),
 * whatever the CPUs and nodes: buf_touch passes buf_touch_threads' count. */
void buf_touch_on(void *p, uint64_t bytes, int threads);

/* Threads that first-touch `bytes` for a caller on cpus[0..ncpus): 1 below
 * 64 MiB, under 4 CPUs, or where they span nodes (or cannot be told), else
 * min(ncpus, 8). */
int buf_touch_threads(const char *sysfs_root, const int *cpus, int ncpus, uint64_t bytes);
/* buf_map, or lab_error "mmap(N bytes): strerror" when it fails. */
void *buf_map_or_die(struct lab *L, uint64_t bytes, uint64_t align, unsigned flags);

/* ---- The registry ---- */

/* Gives back one step of a buffer (munmap, cudaFreeHost, ...); p, bytes as tracked. */
typedef void (*buf_undo_fn)(void *p, uint64_t bytes);

/* `undo` runs on (p, bytes) when p is freed or at exit, newest first. */
int buf_track(void *p, uint64_t bytes, buf_undo_fn undo);
/* Forget the newest `undo` on p without running it (-1, ENOENT: none). */
int buf_untrack(void *p, buf_undo_fn undo);
/* Run every undo on p, newest first; NULL is a no-op; -1, ENOENT: not tracked. */
int buf_free(void *p);
/* Run every undo, newest first, only in the process that recorded them. */
void buf_release_all(void);
/* buf_release_all at exit, before every atexit handler registered so far (the
 * CUDA runtime's teardown); calling it again is harmless. */
void buf_release_at_exit(void);
/* Records in the registry now (the unit tests, and a lab checking it freed all). */
size_t buf_tracked(void);

/* ---- The pattern ---- */

/*
 * Fill `bytes` at p with pattern `seed`.  buf_fill_down goes from the last
 * word to the first, to meet a DMA engine reading front to back instead of
 * trailing behind it (a rewrite racing a copy), on the calling thread.
 * From 64 MiB up buf_fill splits the words among up to 8 threads: where a
 * lab cares which node holds the pages, touch them first (BUF_TOUCH).
 */
void buf_fill(void *p, uint64_t bytes, uint32_t seed);
void buf_fill_down(void *p, uint64_t bytes, uint32_t seed);

/* A host refill to time: buf_fill_down of bytes at p with seed + 1, +2, ... */
struct buf_refill {
	void *p;
	uint64_t bytes;
	uint32_t seed;      /* the last seed written; advanced before each fill */
};
/* A lab_run_fn: one refill of (struct buf_refill *)job, in host seconds. */
double buf_refill_sample(void *job);

/* What buf_verify read and found. */
struct buf_check {
	uint64_t words;     /* words read (a tail counts as one) */
	uint64_t bad;       /* of them, words with any byte not the pattern's */
	uint64_t first_bad; /* byte offset of the first such byte; UINT64_MAX: none */
};

/*
 * Count the words of `bytes` at p that differ from pattern `seed`, reading
 * every stride-th word plus the last and the tail (write-combined memory:
 * one a page).  Returns the bad words; out (may be NULL) has the details.
 */
uint64_t buf_verify(const void *p, uint64_t bytes, uint32_t seed, uint64_t stride,
		    struct buf_check *out);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_BUFFER_H */
