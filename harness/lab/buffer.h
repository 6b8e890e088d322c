/*
 * buffer.h - host buffers for the labs: anonymous memory on a page or
 * huge-page boundary, touched now or left untouched; a seeded data pattern
 * to fill a buffer with and count the words that lost it; and a registry
 * that gives every buffer back on every path, the exit after lab_error()
 * or lab_skip() included.
 *
 * Plain C, no CUDA: the CUDA kinds (pinned, registered, write-combined,
 * device, managed memory) and the pattern's GPU kernels are in
 * lab_buffers_cuda.h, built on the registry here.
 *
 * Why a registry: a lab that stops half-way (lab_error exits 99) must still
 * give back what it holds.  Process exit frees memory anyway, but pinned
 * and device memory go back to the driver only through the CUDA calls, and
 * a lab that releases by hand forgets one path sooner or later.  Each
 * allocation pushes an "undo" (munmap, cudaFreeHost, cudaHostUnregister,
 * ...) keyed by its first byte; buf_free() runs a buffer's undos, newest
 * first; at exit the rest run, newest first, in the process that made them.
 *
 * Sizes in bytes.  Errors: NULL or -1 with errno set (EINVAL, ENOMEM, or
 * mmap's own), or lab_error() in the *_or_die forms.
 */
#ifndef DMALAB_BUFFER_H
#define DMALAB_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "lab.h"

/*
 * Word i (32 bits) of the pattern `seed`: seed x an odd constant, XOR the
 * index.  The constant is odd, so two different seeds give different words
 * at every index: a count of words that differ from one seed finds any
 * mix-up with another, and a word left over from the last fill (seed s)
 * never passes for the next (seed s + 1).  An XOR with the index, no
 * multiply per word, so a fill runs at the speed of the stores.  Shared by
 * the host fill below and the GPU kernels of lab_buffers_cuda.h, hence
 * callable from device code under nvcc.
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

/* ------------------------------------------------------------------------ */
/* Host memory                                                               */

/* Flags of buf_map (or them together). */
#define BUF_TOUCH     0x01u /* every page faulted in now, zeroed: no page faults later */
#define BUF_HUGE      0x02u /* madvise(MADV_HUGEPAGE): THP where "madvise" mode */
#define BUF_NOHUGE    0x04u /* madvise(MADV_NOHUGEPAGE): 4 KiB pages only */
#define BUF_NORESERVE 0x08u /* MAP_NORESERVE: no swap space is reserved */
#define BUF_UNTRACKED 0x10u /* not in the registry: the caller munmaps (p, bytes) */

/*
 * A private anonymous mapping of `bytes` (> 0) whose first byte lies on an
 * `align` boundary: 0 for the page size, or a power of two >= it (2 MiB, so
 * that transparent huge pages can back the buffer from its first byte and
 * no huge page reaches below it; the extra is unmapped again).  Untouched
 * unless BUF_TOUCH: a fresh mapping has no page resident.  A madvise that
 * BUF_HUGE or BUF_NOHUGE asks for and the kernel refuses is not an error:
 * its errno goes to *advice_errno (0 when taken; may be NULL).
 * Returns the buffer (tracked: buf_free() it), or NULL with errno: EINVAL
 * for bytes 0 or a bad align, ENOMEM when bytes + align passes 2^64 - 1,
 * or mmap's errno.
 */
void *buf_map(uint64_t bytes, uint64_t align, unsigned flags, int *advice_errno);
/*
 * First touch of `bytes` at p (page-aligned, mapped writable, not yet
 * written: buf_map's BUF_TOUCH, or memory with an mbind policy), so the
 * bytes read 0 and every page, huge ones included where the mapping gets
 * them, is resident.  One thread asks the kernel to fault each page in
 * writable (MADV_POPULATE_WRITE, Linux 5.14; a memset of 0 where that is
 * refused).  From 64 MiB up, and with 4 CPUs or more, the work is split
 * into parts of whole 2 MiB from p, each written with 0 by one of up to 8
 * threads (buf_touch_threads), which place the pages where the calling thread
 * would: a fault takes memory from the node of the CPU that faults (unless
 * a policy binds it), and the helper threads run on the caller's CPUs, so
 * they share the work only when those CPUs are all on one NUMA node.
 */
void buf_touch(void *p, uint64_t bytes);
/* buf_touch on `threads` (at most 8; under 2: one thread asking the kernel),
 * whatever the CPUs and nodes: buf_touch passes buf_touch_threads' count. */
void buf_touch_on(void *p, uint64_t bytes, int threads);

/*
 * Threads that first-touch `bytes` for a caller that may run on
 * cpus[0..ncpus) (CPU numbers), with the NUMA nodes of the sysfs tree under
 * sysfs_root ("/sys"; tests pass a fixture): 1 below 64 MiB, for fewer
 * than 4 CPUs, or where those CPUs span more than one node, else
 * min(ncpus, 8).  An unreadable tree, or a CPU no node lists, gives 1: the
 * placement could differ.
 */
int buf_touch_threads(const char *sysfs_root, const int *cpus, int ncpus, uint64_t bytes);
/* buf_map, or lab_error "mmap(N bytes): strerror" when it fails. */
void *buf_map_or_die(struct lab *L, uint64_t bytes, uint64_t align, unsigned flags);

/* ------------------------------------------------------------------------ */
/* The registry                                                              */

/* Gives back one step of a buffer (munmap, cudaFreeHost, ...); p, bytes as tracked. */
typedef void (*buf_undo_fn)(void *p, uint64_t bytes);

/*
 * Record that `undo` must run on (p, bytes) when p is freed or at exit.
 * Several undos on one p run newest first (a registration before the
 * munmap of the memory it pins).  Returns 0, or -1 with errno ENOMEM.
 */
int buf_track(void *p, uint64_t bytes, buf_undo_fn undo);
/*
 * Forget the newest record of `undo` on p without running it: the caller
 * has undone that step itself (e.g. unregistered before timing).
 * Returns 0, or -1 with errno ENOENT when there is none.
 */
int buf_untrack(void *p, buf_undo_fn undo);
/*
 * Run every undo recorded on p, newest first, and forget them: the buffer
 * is gone.  free(NULL)'s rule: NULL is a no-op that returns 0.  Returns 0,
 * or -1 with errno ENOENT when p is not tracked (BUF_UNTRACKED: munmap it).
 */
int buf_free(void *p);
/*
 * Run every recorded undo, newest first, and forget them.  Only in the
 * process that recorded them: a forked child never releases its parent's
 * buffers (a CUDA call there would be wrong, and the parent frees them).
 * The registry calls it at exit on its own.
 */
void buf_release_all(void);
/*
 * Arrange for buf_release_all to run at exit before every atexit handler
 * registered so far (atexit runs the last registered first).  The CUDA
 * side calls it once after its first allocation, when the runtime has set
 * up its own teardown, so that pinned and device buffers go back while the
 * runtime can still take them.  Calling it again is harmless.
 */
void buf_release_at_exit(void);
/* Records in the registry now (the unit tests, and a lab checking it freed all). */
size_t buf_tracked(void);

/* ------------------------------------------------------------------------ */
/* The pattern                                                               */

/*
 * Fill `bytes` at p (4-byte aligned) with pattern `seed`: word i gets
 * buf_pattern_word(seed, i); a tail of bytes % 4 gets the first bytes of
 * word bytes / 4.  buf_fill goes front to back; buf_fill_down from the last
 * word to the first, which meets a DMA engine reading front to back instead
 * of trailing behind it (a rewrite racing a copy).
 *
 * From 64 MiB up buf_fill splits the words among threads (up to 8, no more
 * than the CPUs this thread may run on), each one contiguous part that
 * starts on a 4 KiB boundary of the buffer, and returns when all are done;
 * the bytes are those of one thread's fill.  A thread that cannot be
 * created leaves its part to the caller.  Pages not yet resident are then
 * first touched by several threads: where a lab cares which NUMA node holds
 * them, touch them first (BUF_TOUCH).  buf_fill_down stays on the calling
 * thread, its order being its point.
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
 * Count the words of `bytes` at p that differ from pattern `seed`.  With
 * stride > 1 only every stride-th word is read, plus the last whole word
 * and the tail (for memory the CPU reads slowly, such as write-combined:
 * one word per page is stride = page / 4).  stride 0 counts as 1.
 * Returns the bad words; out (may be NULL) receives the details.  From
 * 64 MiB up the words read are split among threads as buf_fill's, and
 * their counts added: words, bad and first_bad are exactly one thread's.
 */
uint64_t buf_verify(const void *p, uint64_t bytes, uint32_t seed, uint64_t stride,
		    struct buf_check *out);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_BUFFER_H */
