/*
 * buffer.c - aligned anonymous mappings, the buffer registry, the pattern.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "buffer.h"
#include "numa_topo.h"

/* ---- The registry: a stack of undos, newest first ---- */

struct undo_rec {
	void *p;
	uint64_t bytes;
	buf_undo_fn undo;
	struct undo_rec *next;
};

/* Labs map and free from worker threads too (lab-04's first touch). */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct undo_rec *reg_top;
static size_t reg_count;
static pid_t reg_owner;   /* the process whose buffers these are */
static int reg_armed;     /* atexit done once */

/*
 * A forked child's registry starts empty: the records it inherited are its
 * parent's to run, never its own (a CUDA call in the child would be wrong).
 * Called with the lock held, on the child's first use.
 */
static void forget_inherited(void)
{
	while (reg_top) {
		struct undo_rec *next = reg_top->next;

		free(reg_top);
		reg_top = next;
	}
	reg_count = 0;
	reg_owner = getpid();
}

int buf_track(void *p, uint64_t bytes, buf_undo_fn undo)
{
	struct undo_rec *r = malloc(sizeof(*r));

	if (!r) {
		errno = ENOMEM;
		return -1;
	}
	r->p = p;
	r->bytes = bytes;
	r->undo = undo;
	pthread_mutex_lock(&reg_lock);
	if (!reg_armed && atexit(buf_release_all) == 0)
		reg_armed = 1;
	if (reg_owner != getpid())
		forget_inherited();
	r->next = reg_top;
	reg_top = r;
	reg_count++;
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

/* Unlink the records on p (all, or the newest of `undo`); returns them, newest first. */
static struct undo_rec *unlink_records(void *p, buf_undo_fn undo)
{
	struct undo_rec **at = &reg_top, *got = NULL, **tail = &got;

	while (*at) {
		struct undo_rec *r = *at;

		if (r->p != p || (undo && r->undo != undo)) {
			at = &r->next;
			continue;
		}
		*at = r->next;
		r->next = NULL;
		*tail = r;
		tail = &r->next;
		reg_count--;
		if (undo)
			break;
	}
	return got;
}

/* Run and free a list of records, in its order. */
static void run_records(struct undo_rec *r)
{
	while (r) {
		struct undo_rec *next = r->next;

		r->undo(r->p, r->bytes);
		free(r);
		r = next;
	}
}

/* Takes p's records out of the registry (see unlink_records); ENOENT when none. */
static struct undo_rec *take_records(void *p, buf_undo_fn undo)
{
	struct undo_rec *r;

	pthread_mutex_lock(&reg_lock);
	if (reg_owner != getpid())
		forget_inherited();
	r = unlink_records(p, undo);
	pthread_mutex_unlock(&reg_lock);
	if (!r)
		errno = ENOENT;
	return r;
}

int buf_untrack(void *p, buf_undo_fn undo)
{
	struct undo_rec *r = take_records(p, undo);

	if (!r)
		return -1;
	free(r);
	return 0;
}

int buf_free(void *p)
{
	struct undo_rec *r;

	if (!p)
		return 0;
	r = take_records(p, NULL);
	if (!r)
		return -1;
	/* outside the lock: an undo may take long (cudaFreeHost of GiBs) */
	run_records(r);
	return 0;
}

void buf_release_all(void)
{
	struct undo_rec *r = NULL;

	pthread_mutex_lock(&reg_lock);
	if (reg_owner == getpid()) {
		r = reg_top;
		reg_top = NULL;
		reg_count = 0;
	}
	pthread_mutex_unlock(&reg_lock);
	run_records(r);
}

void buf_release_at_exit(void)
{
	/* a second entry for the same handler: it runs earlier, and the later
	 * one finds nothing left */
	if (atexit(buf_release_all) == 0) {
		pthread_mutex_lock(&reg_lock);
		reg_armed = 1;
		pthread_mutex_unlock(&reg_lock);
	}
}

size_t buf_tracked(void)
{
	size_t n;

	pthread_mutex_lock(&reg_lock);
	n = reg_owner == getpid() ? reg_count : 0;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

/* ---- Mappings ---- */

static void undo_munmap(void *p, uint64_t bytes)
{
	munmap(p, (size_t)bytes);
}

/*
 * Map len + align (when align is above the page size) and unmap the head
 * below the first aligned byte and the tail past len: what is left is
 * exactly [start, start + len), which munmap(start, len) gives back.
 */
static void *map_aligned(uint64_t len, uint64_t align, int mflags)
{
	uint64_t span = align ? len + align : len;
	uintptr_t base, start;
	void *m = mmap(NULL, (size_t)span, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | mflags, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (!align)
		return m;
	base = (uintptr_t)m;
	start = (base + align - 1) & ~(uintptr_t)(align - 1);
	if (start > base)
		munmap(m, start - base);
	if (base + span > start + len)
		munmap((void *)(start + len), base + span - (start + len));
	return (void *)start;
}

void *buf_map(uint64_t bytes, uint64_t align, unsigned flags, int *advice_errno)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), len;
	void *p;
	int advice = flags & BUF_HUGE ? MADV_HUGEPAGE : MADV_NOHUGEPAGE;

	if (advice_errno)
		*advice_errno = 0;
	if (bytes == 0 || (align && (align < page || (align & (align - 1))))) {
		errno = EINVAL;
		return NULL;
	}
	/* the mapping's length, whole pages; align = page needs no extra */
	if (bytes > UINT64_MAX - (page - 1)) {
		errno = ENOMEM;
		return NULL;
	}
	len = (bytes + page - 1) / page * page;
	if (align == page)
		align = 0;
	if (align && len > UINT64_MAX - align) {
		errno = ENOMEM;
		return NULL;
	}
	p = map_aligned(len, align, flags & BUF_NORESERVE ? MAP_NORESERVE : 0);
	if (!p)
		return NULL;
	if ((flags & (BUF_HUGE | BUF_NOHUGE)) && madvise(p, (size_t)len, advice) < 0 &&
	    advice_errno)
		*advice_errno = errno;
	if (flags & BUF_TOUCH)
		buf_touch(p, bytes);
	if (!(flags & BUF_UNTRACKED) && buf_track(p, len, undo_munmap) < 0) {
		munmap(p, (size_t)len);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

void *buf_map_or_die(struct lab *L, uint64_t bytes, uint64_t align, unsigned flags)
{
	void *p = buf_map(bytes, align, flags, NULL);

	if (!p)
		lab_error_errno(L, "mmap(%llu bytes)", (unsigned long long)bytes);
	return p;
}

/* ---- The pattern ---- */

/* The tail of bytes % 4 bytes after word n: word n's first bytes, in memory order. */
static void fill_tail(unsigned char *p, uint64_t bytes, uint32_t seed)
{
	uint32_t w = buf_pattern_word(seed, bytes / 4);

	memcpy(p + bytes / 4 * 4, &w, (size_t)(bytes % 4));
}

/*
 * Words per step of the fills: the fixed count lets the compiler make one
 * vector store of each step at -O2, as it did in the labs' own fill loops
 * over sizes it knew.  The speed matters: a lab times its refills, and a
 * rewrite racing a copy must be as fast as before (lab-03).
 */
#define FILL_BLOCK 4

/*
 * Words [base, base + FILL_BLOCK) of w, last word first.  The pattern takes
 * the index modulo 2^32, so 32-bit lanes compute it (no 64-bit unpacking).
 */
static inline void fill_block_down(uint32_t *w, uint64_t base, uint32_t seed)
{
	uint32_t *b = w + base, lo = (uint32_t)base;

	for (unsigned k = FILL_BLOCK; k-- > 0;)
		b[k] = buf_pattern_word(seed, (uint32_t)(lo + k));
}

static inline void fill_block_up(uint32_t *w, uint64_t base, uint32_t seed)
{
	uint32_t *b = w + base, lo = (uint32_t)base;

	for (unsigned k = 0; k < FILL_BLOCK; k++)
		b[k] = buf_pattern_word(seed, (uint32_t)(lo + k));
}

/* ---- Large fills and checks on several threads ---- */

/*
 * One thread stores or compares a few GB/s, so a 1 GiB buffer takes it a
 * few tenths of a second (lab_copy_verify fills and checks one per kind of
 * memory).  From PAR_MIN_BYTES up the words are split into contiguous
 * parts, one per thread; a word's value depends on its index alone, so the
 * split changes nothing in the result.
 */
#define PAR_MIN_BYTES (64ull << 20)
#define PAR_MAX_THREADS 8
/* Parts start on a 4 KiB boundary of the buffer: no cache line is shared. */
#define PAR_ALIGN_WORDS 1024

/* Words [lo, hi) of one part (lo a multiple of stride); a check's findings. */
struct pattern_part {
	void (*run)(struct pattern_part *part);
	uint32_t *w;
	uint64_t lo, hi;
	uint64_t stride;    /* the check reads words lo, lo + stride, ... */
	uint32_t seed;
	struct buf_check c; /* the check's count over this part alone */
	pthread_t tid;
	int threaded;       /* 1 when part runs on a thread of its own */
};

/* Threads for `bytes`: 1 below PAR_MIN_BYTES, else the CPUs we may run on, at most 8. */
static int par_threads(uint64_t bytes)
{
	cpu_set_t set;
	int n;

	if (bytes < PAR_MIN_BYTES || sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : n;
}

/*
 * Splits words [0, n) into at most `threads` parts of proto in order, each
 * but the last a whole number of units (a unit: PAR_ALIGN_WORDS rounded up
 * to a multiple of stride (>= 1), so a part's first word is one the check
 * reads).  Returns the parts, 1 or more (an empty buffer: one empty part).
 */
static int split_parts(struct pattern_part *parts, int threads, uint64_t n, uint64_t stride,
		       const struct pattern_part *proto)
{
	uint64_t unit, per, lo = 0;
	int k = 0;

	if (threads < 2 || stride >= n / threads) { /* one part: too few words to share */
		parts[0] = *proto;
		parts[0].lo = 0;
		parts[0].hi = n;
		return 1;
	}
	unit = stride >= PAR_ALIGN_WORDS ? stride :
		(PAR_ALIGN_WORDS + stride - 1) / stride * stride;
	per = ((n + threads - 1) / threads + unit - 1) / unit * unit;
	do {
		parts[k] = *proto;
		parts[k].lo = lo;
		parts[k].hi = n - lo > per ? lo + per : n;
		lo = parts[k++].hi;
	} while (lo < n && k < threads);
	return k;
}

static void *part_main(void *arg)
{
	struct pattern_part *part = (struct pattern_part *)arg;

	part->run(part);
	return NULL;
}

/*
 * Runs every part and returns when all are done: parts 1.. on threads of
 * their own (every signal blocked there, so that the lab's handlers run in
 * the thread they were meant for), part 0 here, and here also any part
 * whose thread could not be created.
 */
static void run_parts(struct pattern_part *parts, int n)
{
	sigset_t all, old;

	if (n == 1) { /* a small buffer: no thread, no system call */
		parts[0].run(&parts[0]);
		return;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int k = 1; k < n; k++)
		parts[k].threaded = pthread_create(&parts[k].tid, NULL, part_main, &parts[k]) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	parts[0].run(&parts[0]);
	for (int k = 1; k < n; k++) {
		if (parts[k].threaded)
			pthread_join(parts[k].tid, NULL);
		else
			parts[k].run(&parts[k]);
	}
}

/* ---- First touch ---- */

#define TOUCH_ALIGN_WORDS ((2ull << 20) / 4) /* parts of whole 2 MiB (huge) pages */
/* Threads only from 4 CPUs: with 2, two threads' memset was no faster than one
 * thread's MADV_POPULATE_WRITE on the H200 host (0.36 against 0.40 s per GiB of
 * 4 KiB pages) and slower on the 2-core CI VM (0.8-1.5 against 0.6-0.7 s). */
#define TOUCH_MIN_CPUS 4

/* The node whose cpulist has cpu, or -1. */
static int node_of_cpu(const struct numa_topo *t, int cpu)
{
	for (int i = 0; i < t->nnodes; i++)
		if (cpulist_contains(t->node[i].cpulist, cpu))
			return t->node[i].id;
	return -1;
}

int buf_touch_threads(const char *sysfs_root, const int *cpus, int ncpus, uint64_t bytes)
{
	struct numa_topo *t;
	int node;

	if (bytes < PAR_MIN_BYTES || ncpus < TOUCH_MIN_CPUS || !(t = malloc(sizeof(*t))))
		return 1;
	node = numa_topo_read(sysfs_root, t) == 0 ? node_of_cpu(t, cpus[0]) : -1;
	for (int i = 1; node >= 0 && i < ncpus; i++)
		if (node_of_cpu(t, cpus[i]) != node)
			node = -1;
	free(t);
	if (node < 0)
		return 1;
	return ncpus > PAR_MAX_THREADS ? PAR_MAX_THREADS : ncpus;
}

/* The threads for touching bytes here: this thread's CPUs, the live sysfs. */
static int touch_threads_here(uint64_t bytes)
{
	int cpus[CPU_SETSIZE];
	cpu_set_t set;
	int n = 0;

	if (bytes < PAR_MIN_BYTES || sched_getaffinity(0, sizeof(set), &set) < 0)
		return 1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	return buf_touch_threads("/sys", cpus, n, bytes);
}

/*
 * One thread faults [p, p + len) in writable (p page-aligned): the kernel
 * zeroes each page as a write would, without a trap per page.  On the H200
 * host (README, "Time to the answer") this took 0.40 s for 1 GiB of 4 KiB
 * pages against memset's 0.66 s; on 8 threads memset's parts were the
 * faster (0.09 against 0.22 s), so the parts write.
 */
static void touch_range(unsigned char *p, uint64_t len)
{
#ifdef MADV_POPULATE_WRITE
	if (madvise(p, (size_t)len, MADV_POPULATE_WRITE) == 0)
		return;
#endif
	memset(p, 0, (size_t)len);
}

static void touch_part(struct pattern_part *part)
{
	memset(part->w + part->lo, 0, (size_t)(part->hi - part->lo) * 4);
}

void buf_touch_on(void *p, uint64_t bytes, int threads)
{
	struct pattern_part parts[PAR_MAX_THREADS];
	struct pattern_part proto = { touch_part, (uint32_t *)p, 0, 0, TOUCH_ALIGN_WORDS, 0 };
	int n = threads < PAR_MAX_THREADS ? threads : PAR_MAX_THREADS;

	if (n < 2 || bytes % 4) { /* one thread (a tail of bytes % 4 would need its own) */
		touch_range((unsigned char *)p, bytes);
		return;
	}
	run_parts(parts, split_parts(parts, n, bytes / 4, TOUCH_ALIGN_WORDS, &proto));
}

void buf_touch(void *p, uint64_t bytes)
{
	buf_touch_on(p, bytes, touch_threads_here(bytes));
}

/* ---- Fill and check ---- */

/* Words [lo, hi) of pattern `seed`; lo a multiple of FILL_BLOCK. */
static void fill_words(uint32_t *w, uint64_t lo, uint64_t hi, uint32_t seed)
{
	uint64_t whole = lo + (hi - lo) / FILL_BLOCK * FILL_BLOCK;

	for (uint64_t i = lo; i < whole; i += FILL_BLOCK)
		fill_block_up(w, i, seed);
	for (uint64_t i = whole; i < hi; i++)
		w[i] = buf_pattern_word(seed, i);
}

static void fill_part(struct pattern_part *part)
{
	fill_words(part->w, part->lo, part->hi, part->seed);
}

void buf_fill(void *p, uint64_t bytes, uint32_t seed)
{
	struct pattern_part parts[PAR_MAX_THREADS];
	struct pattern_part proto = { fill_part, (uint32_t *)p, 0, 0, 1, seed };

	run_parts(parts, split_parts(parts, par_threads(bytes), bytes / 4, 1, &proto));
	fill_tail((unsigned char *)p, bytes, seed);
}

void buf_fill_down(void *p, uint64_t bytes, uint32_t seed)
{
	uint32_t *w = (uint32_t *)p;
	uint64_t n = bytes / 4, whole = n - n % FILL_BLOCK;

	fill_tail((unsigned char *)p, bytes, seed);
	for (uint64_t i = n; i-- > whole;)
		w[i] = buf_pattern_word(seed, i);
	for (uint64_t i = whole; i > 0; i -= FILL_BLOCK)
		fill_block_down(w, i - FILL_BLOCK, seed);
}

double buf_refill_sample(void *job)
{
	struct buf_refill *f = (struct buf_refill *)job;
	double t0 = lab_now();

	buf_fill_down(f->p, f->bytes, ++f->seed);
	return lab_now() - t0;
}

/* Checks len (<= 4) bytes at byte offset off against word i; counts into c. */
static void check_word(const unsigned char *p, uint64_t i, uint64_t off, size_t len,
		       uint32_t seed, struct buf_check *c)
{
	uint32_t w = buf_pattern_word(seed, i);
	unsigned char want[4];

	memcpy(want, &w, sizeof(want));
	c->words++;
	for (size_t k = 0; k < len; k++) {
		if (p[off + k] != want[k]) {
			c->bad++;
			if (c->first_bad == UINT64_MAX)
				c->first_bad = off + k;
			return;
		}
	}
}

/* Words per step of a check of every word: one OR of the step's differences
 * tests them all, in vector registers at -O2; a step that differs is rechecked
 * word by word. */
#define CHECK_BLOCK 16

/* Words lo, lo + stride, ... below hi of one part, counted into the part's c. */
static void check_part(struct pattern_part *part)
{
	const uint32_t *w = part->w;
	uint64_t i = part->lo;

	for (; part->stride == 1 && part->hi - i >= CHECK_BLOCK; i += CHECK_BLOCK) {
		uint32_t diff = 0, lo = (uint32_t)i;
		unsigned k;

		for (k = 0; k < CHECK_BLOCK; k++)
			diff |= w[i + k] ^ buf_pattern_word(part->seed, (uint32_t)(lo + k));
		if (diff == 0) {
			part->c.words += CHECK_BLOCK;
			continue;
		}
		for (k = 0; k < CHECK_BLOCK; k++)
			if (w[i + k] == buf_pattern_word(part->seed, i + k))
				part->c.words++;
			else
				check_word((const unsigned char *)w, i + k, (i + k) * 4, 4,
					   part->seed, &part->c);
	}
	for (; i < part->hi; i += part->stride) {
		/* the common case first: a whole word that matches */
		if (w[i] == buf_pattern_word(part->seed, i))
			part->c.words++;
		else
			check_word((const unsigned char *)w, i, i * 4, 4, part->seed, &part->c);
	}
}

uint64_t buf_verify(const void *p, uint64_t bytes, uint32_t seed, uint64_t stride,
		    struct buf_check *out)
{
	const unsigned char *b = (const unsigned char *)p;
	struct pattern_part parts[PAR_MAX_THREADS];
	struct pattern_part proto = { check_part, (uint32_t *)p, 0, 0, 1, seed,
				      { 0, 0, UINT64_MAX } };
	uint64_t n = bytes / 4;
	struct buf_check c = { 0, 0, UINT64_MAX };
	int k, nparts;

	if (stride == 0)
		stride = 1;
	proto.stride = stride;
	nparts = split_parts(parts, par_threads(bytes), n, stride, &proto);
	run_parts(parts, nparts);
	for (k = 0; k < nparts; k++) { /* in order: the first part with a bad word has the first */
		c.words += parts[k].c.words;
		c.bad += parts[k].c.bad;
		if (c.first_bad == UINT64_MAX)
			c.first_bad = parts[k].c.first_bad;
	}
	if (stride > 1 && n > 0 && (n - 1) % stride != 0)
		check_word(b, n - 1, (n - 1) * 4, 4, seed, &c);
	if (bytes % 4)
		check_word(b, n, n * 4, (size_t)(bytes % 4), seed, &c);
	if (out)
		*out = c;
	return c.bad;
}
