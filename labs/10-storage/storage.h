/*
 * storage.h - a test file for a lab that reads storage, and what it lies
 * on: the file made with buffer.h's pattern and removed on every path the
 * lab can end by; its pages dropped from the page cache and counted with
 * mincore; the filesystem and block device under it with the device's
 * queue limits; and the device's own counters, from which a pass's mean
 * request size, queue depth and busy share follow.
 *
 * Removal.  A test file is named DIR/PREFIX-PID.dat; other files of the
 * run (a library's log) may be DIR/PREFIX-PID.SUFFIX.  Each is a temporary
 * file of the cleanup chain (cleanup.h: tempfile_add), unlinked when the
 * lab removes it, at exit() and on the signals that end the lab, crashes
 * too; under the runner it is also announced, so that the runner removes
 * it once it has reaped a lab killed by SIGKILL.  What a run alone that was
 * SIGKILLed left, the next run removes: storage_sweep_stale unlinks every
 * such file in the folder whose process is gone.
 *
 * Cold reads.  posix_fadvise(POSIX_FADV_DONTNEED) asks the kernel to drop
 * the file's clean pages; it is advice (tmpfs keeps every page, a page
 * another process maps stays), so the pages still cached are counted with
 * mincore on a mapping of the file that is never touched.
 *
 * Device counters.  /sys/dev/block/MAJ:MIN/stat (the kernel's
 * Documentation/block/stat.rst): field 1 reads completed, 3 sectors read
 * (512 bytes each), 4 milliseconds the reads spent in flight, summed over
 * requests, 10 milliseconds the device had any request in flight.  Over a
 * pass of wall time T: sectors x 512 / reads is the mean request, read ms /
 * T the mean number in flight (iostat's aqu-sz, reads only), busy ms / T
 * the busy share.  They count every process's I/O to the device.
 *
 * storage_where_read takes a root directory (NULL or "": the live /proc
 * and /sys) and storage_counters_read a path, so the unit tests
 * (harness/tests/unit/test_storage.c) point them at a tree they made.
 * storage_file_make and storage_where_report are the lab-facing forms
 * (lab_error, facts, notes).  Sizes in bytes unless a name says KiB;
 * errors: -1 with errno.
 */
#ifndef DMALAB_STORAGE_H
#define DMALAB_STORAGE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lab;
struct storage_where;

/* ------------------------------------------------------------------------ */
/* What a killed run left                                                    */

/* Told of each stale file storage_sweep_stale removed, and its dead pid. */
typedef void (*storage_stale_fn)(const char *path, long pid, void *ctx);
/*
 * Unlink every DIR/PREFIX-PID.SUFFIX (SUFFIX: lower-case letters and dots)
 * whose PID names no process (kill(pid, 0) fails with ESRCH), calling fn
 * (may be NULL) for each.  The files removed, or -1 with errno.
 */
int storage_sweep_stale(const char *dir, const char *prefix, storage_stale_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* The test file                                                             */

/* The folder of a lab's --json file (".", or "/" for a file in /), else
 * "results": where a lab puts its test file by default.  Returns buf. */
const char *storage_dir_default(const char *json_path, char *buf, size_t len);
/*
 * Can a file be made in dir?  0, or -1 with errno and one line in why
 * (len >= 200): a missing folder (ENOENT; 0 when missing_ok, for a default
 * folder the lab makes), not a folder, not writable, or no file can be
 * made there (a probe, removed).  A mistake in what was typed; room is
 * storage_dir_room's.
 */
int storage_dir_check(const char *dir, int missing_ok, char *why, size_t len);
/*
 * Has dir's filesystem (its parent's while dir is missing) `need` bytes
 * free?  0, also when statvfs cannot tell; else -1 with errno ENOSPC and
 * why "<free> free in <dir>, <need> needed" (len >= 200): the machine's
 * lack, a skip (SKIP_NOT_ENOUGH_SPACE), not a usage error.
 */
int storage_dir_room(const char *dir, uint64_t need, char *why, size_t len);

struct storage_file {
	char path[PATH_MAX];   /* DIR/PREFIX-PID.dat */
	uint64_t bytes;
	int fd;                /* read-write, through the page cache */
	int fd_direct;         /* read-only, O_DIRECT; -1 where it was refused */
	int direct_errno;      /* why it was refused (EINVAL: the filesystem) */
	long page;             /* the system's page size */
	unsigned char *map;    /* the file mapped, never touched: mincore's view */
	unsigned char *vec;    /* a byte a page, for mincore */
	double write_s;        /* seconds the fill and fdatasync took */
};

/*
 * Make DIR/PREFIX-PID.dat (O_EXCL, mode 0600), armed for removal first:
 * `bytes` of pattern `seed` (word i is buf_pattern_word(seed, i)), written
 * `chunk` bytes at a time (chunk divides bytes, a multiple of 4) through
 * `scratch` (chunk bytes), then fdatasync'd, so that every page is clean
 * and DONTNEED can drop it; then opened again with O_DIRECT.  0, or -1
 * with errno and *what (may be NULL) naming the step ("creating",
 * "writing", "fdatasync"; ENOSPC when the disk filled up, EFBIG past
 * RLIMIT_FSIZE, SIGXFSZ ignored meanwhile), the file then removed.  A
 * refused O_DIRECT open is not an error: fd_direct -1, direct_errno set.
 */
int storage_file_create(struct storage_file *f, const char *dir, const char *prefix,
			uint64_t bytes, uint64_t chunk, uint32_t seed, void *scratch,
			const char **what);
/*
 * For a lab: make dir first when make_dir (a default folder the lab owns),
 * sweep PREFIX's stale files there (a note for each), storage_file_create,
 * then the fact file_write_gbs, storage_where_read into *w and
 * storage_where_report.  A failure is lab_error (exit 99): one line naming
 * dir, the step and errno ("--dir 'd': fdatasync the test file: Input/output
 * error"; a folder the user did not type is "the test folder 'd'"), the
 * file already removed.  A disk that fills up meanwhile (ENOSPC, EDQUOT) is
 * a whole-lab skip, not-enough-space.
 */
void storage_file_make(struct lab *L, struct storage_file *f, struct storage_where *w,
		       const char *dir, int make_dir, const char *prefix, uint64_t bytes,
		       uint64_t chunk, uint32_t seed, void *scratch);
/* Close, unmap and remove the file (a second call does nothing). */
void storage_file_close(struct storage_file *f);
/* Pages of the file in the page cache now (mincore), or -1 when it cannot tell. */
long storage_cached_pages(const struct storage_file *f);
/* posix_fadvise(POSIX_FADV_DONTNEED) on the whole file, then storage_cached_pages. */
long storage_evict(struct storage_file *f);

/* pread (write 0) or pwrite all len bytes at off, across short transfers and
 * EINTR: 0, or -1 with errno (EIO for a read that ends early, ENOSPC for a
 * write that does). */
int storage_io_all(int fd, void *p, uint64_t len, uint64_t off, int write);

/* ------------------------------------------------------------------------ */
/* What the file lies on                                                     */

struct storage_where {
	char fs[64];            /* the filesystem type (mountinfo), "?" unknown */
	char source[256];       /* the mount's source, "?" unknown */
	char device[64];        /* the block device ("vda", "nvme0n1p2"); "" none */
	char stat_path[PATH_MAX]; /* its counters; "" none */
	long rotational;        /* the disk's queue: 1 spinning (or a virtual disk
				 * that says so), 0 not; -1 unknown */
	long read_ahead_kb;     /* the kernel's read-ahead window, KiB */
	long max_sectors_kb;    /* the largest request the block layer builds, KiB */
	long max_segments;      /* physically contiguous pieces per request */
};
/*
 * The filesystem of device dev (root/proc/self/mountinfo, the line whose
 * MAJ:MIN is dev's) and the block device behind it
 * (root/sys/dev/block/MAJ:MIN; a partition's queue is its disk's).  A
 * device with no block device (tmpfs, overlayfs) gets device "" and -1s.
 * 0, or -1 with errno only for a bad argument.
 */
int storage_where_read(const char *root, dev_t dev, struct storage_where *w);

/* The facts fs_type, block_device ("none"), block_rotational,
 * block_read_ahead_kb, block_max_sectors_kb, block_max_segments, and a
 * note naming the file `path` and all of them. */
void storage_where_report(struct lab *L, const char *path, const struct storage_where *w);

/* The device's read counters at one moment, or summed over passes. */
struct storage_counters {
	uint64_t reads;     /* requests completed */
	uint64_t sectors;   /* 512-byte sectors read */
	uint64_t read_ms;   /* ms the reads spent in flight, summed over requests */
	uint64_t busy_ms;   /* ms the device had a request in flight */
	double at;          /* lab_now() at the reading; in a sum, the wall seconds */
};
/* Read a stat file (storage_where's stat_path).  0, or -1 with errno. */
int storage_counters_read(const char *stat_path, struct storage_counters *c);
/* Add what changed from a to b (b - a, at: b.at - a.at) into sum. */
void storage_counters_add(struct storage_counters *sum, const struct storage_counters *a,
			  const struct storage_counters *b);

/* What a sum of passes says; each -1 where it says nothing (no read, no time). */
struct storage_load {
	double req_kib;     /* mean request, KiB */
	double depth;       /* mean reads in flight */
	double busy;        /* share of the wall time the device was busy */
};
struct storage_load storage_load_of(const struct storage_counters *sum);

#ifdef __cplusplus
}
#endif
#endif /* DMALAB_STORAGE_H */
