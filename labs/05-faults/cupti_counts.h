/*
 * cupti_counts.h (lab-05) - what the driver did with managed memory, from CUPTI's
 * Unified Memory counters: GPU page-fault records, bytes migrated each way
 * (host to device split by cause), CPU faults, inside windows of time the
 * lab marks.
 *
 * libcupti is loaded with dlopen, so a lab that includes this starts where
 * it is absent; then, or when CUPTI refuses, lab_cupti_why() says why the
 * counts are unavailable and the lab skips what needed them.  Counting
 * slows the driver down: time with collection off, then run each case once
 * more between lab_cupti_begin() and lab_cupti_end().
 *
 *	lab_cupti_setup(dev);         after the driver is up (or, to keep
 *	                              CUPTI out: lab_cupti_unusable("why"))
 *	lab_cupti_begin(L);           collection on; -1 (noted): unavailable
 *	w.start = lab_cupti_now(); <the case>; w.end = lab_cupti_now();
 *	lab_cupti_end(L);             off; every record received
 *	lab_cupti_count(w, &k);       what fell inside w; or, with the
 *	                              narrative, lab_cupti_note_window for each
 *	                              window, then lab_cupti_windows_seen
 *
 * Times are CUPTI's clock in ns; bytes are bytes.  A record belongs to the
 * window its start falls in.  CUPTI drops records under load (the count is
 * then low: lab_cupti_end says so), and it reports faults in groups.
 *
 * Header-only, one collector per process (a lab is one file).  The record
 * store and the counting are plain C (harness/tests/unit/test_cupti.c); the
 * CUPTI part is built under nvcc (DMALAB_HAVE_CUDA) when <cupti.h> is
 * found, and without it every count is unavailable ("CUPTI headers absent
 * at build time").  Include after lab.h.
 */
#ifndef DMALAB_LAB_CUPTI_H
#define DMALAB_LAB_CUPTI_H

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"

#if DMALAB_HAVE_CUDA && defined(__has_include)
#if __has_include(<cupti.h>)
#define LAB_HAVE_CUPTI 1
#endif
#endif
#ifndef LAB_HAVE_CUPTI
#define LAB_HAVE_CUPTI 0
#endif

/* Counter kinds, CUPTI's values (CUpti_ActivityUnifiedMemoryCounterKind). */
enum lab_cupti_kind {
	LAB_CUPTI_BYTES_HTOD = 1,
	LAB_CUPTI_BYTES_DTOH = 2,
	LAB_CUPTI_CPU_PAGE_FAULT = 3,
	LAB_CUPTI_GPU_PAGE_FAULT = 4,
};

/* Why the driver moved data (CUpti_ActivityUnifiedMemoryMigrationCause). */
enum lab_cupti_cause {
	LAB_CUPTI_CAUSE_USER = 1,        /* cudaMemPrefetchAsync */
	LAB_CUPTI_CAUSE_COHERENCE = 2,   /* a fault: the data had to move */
	LAB_CUPTI_CAUSE_SPECULATIVE = 3, /* the driver's own prefetch around a fault */
	LAB_CUPTI_CAUSE_COUNT = 6
};

/* What CUPTI saw inside one window. */
struct lab_cupti_counts {
	uint64_t gpu_faults;       /* GPU_PAGE_FAULT records */
	uint64_t gpu_fault_groups; /* the sum of their values */
	uint64_t h2d_bytes, h2d_xfers;
	uint64_t h2d_by_cause[LAB_CUPTI_CAUSE_COUNT]; /* bytes, by enum lab_cupti_cause */
	uint64_t d2h_bytes, d2h_xfers;
	uint64_t cpu_faults;       /* CPU_PAGE_FAULT_COUNT records */
};

/* [start, end] on CUPTI's clock (ns), both ends inside. */
struct lab_cupti_window {
	uint64_t start, end;
};

/* Every record there is. */
static const struct lab_cupti_window lab_cupti_all = { 0, UINT64_MAX };

/* ------------------------------------------------------------------------ */
/* The record store (plain C)                                                */

struct lab_cupti_record_ {
	uint32_t kind, flags; /* flags: the migration cause of a transfer */
	uint64_t value;       /* bytes, or fault groups */
	uint64_t start;       /* ns */
};

static struct {
	struct lab_cupti_record_ *rec;
	size_t nrec, cap;
	uint64_t lost;    /* records there was no memory for */
	uint64_t dropped; /* records CUPTI dropped, at lab_cupti_end */
	int on;           /* collecting */
	char why[200];    /* "" while the counts are available */
} lab_cupti_st_ = { NULL, 0, 0, 0, 0, 0,
#if LAB_HAVE_CUPTI
		    "lab_cupti_setup() was not called"
#else
		    "CUPTI headers absent at build time"
#endif
};
static pthread_mutex_t lab_cupti_lock_ = PTHREAD_MUTEX_INITIALIZER;

/*
 * Mark the counts unavailable, printf-style: "--no-counts given", "no
 * record fell inside a timed window".  Whatever was stored stays countable.
 */
static inline void lab_cupti_unusable(const char *fmt, ...) LAB_PRINTF(1, 2);
static inline void lab_cupti_unusable(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lab_cupti_st_.why, sizeof(lab_cupti_st_.why), fmt, ap);
	va_end(ap);
	if (!lab_cupti_st_.why[0])
		snprintf(lab_cupti_st_.why, sizeof(lab_cupti_st_.why), "unavailable");
}

/* Why the counts are unavailable, or NULL while they are not. */
static inline const char *lab_cupti_why(void)
{
	return lab_cupti_st_.why[0] ? lab_cupti_st_.why : NULL;
}

/*
 * Store one record (what CUPTI's buffer callback does for each; public for
 * the unit tests).  Thread-safe.  Returns 0, or -1 when there is no memory
 * (the record is counted as lost).
 */
static inline int lab_cupti_record(uint32_t kind, uint32_t flags, uint64_t value,
				   uint64_t start)
{
	struct lab_cupti_record_ *r;

	pthread_mutex_lock(&lab_cupti_lock_);
	if (lab_cupti_st_.nrec == lab_cupti_st_.cap) {
		size_t cap = lab_cupti_st_.cap ? 2 * lab_cupti_st_.cap : 65536;
		void *n = realloc(lab_cupti_st_.rec, cap * sizeof(*r));

		if (!n) {
			lab_cupti_st_.lost++;
			pthread_mutex_unlock(&lab_cupti_lock_);
			return -1;
		}
		lab_cupti_st_.rec = (struct lab_cupti_record_ *)n;
		lab_cupti_st_.cap = cap;
	}
	r = &lab_cupti_st_.rec[lab_cupti_st_.nrec++];
	r->kind = kind;
	r->flags = flags;
	r->value = value;
	r->start = start;
	pthread_mutex_unlock(&lab_cupti_lock_);
	return 0;
}

/* Records stored so far. */
static inline size_t lab_cupti_records(void)
{
	size_t n;

	pthread_mutex_lock(&lab_cupti_lock_);
	n = lab_cupti_st_.nrec;
	pthread_mutex_unlock(&lab_cupti_lock_);
	return n;
}

/* Forget every record, the lost and dropped counts included. */
static inline void lab_cupti_reset(void)
{
	pthread_mutex_lock(&lab_cupti_lock_);
	free(lab_cupti_st_.rec);
	lab_cupti_st_.rec = NULL;
	lab_cupti_st_.nrec = lab_cupti_st_.cap = 0;
	lab_cupti_st_.lost = lab_cupti_st_.dropped = 0;
	pthread_mutex_unlock(&lab_cupti_lock_);
}

/*
 * Fill *k from the records that started inside w (lab_cupti_all: every
 * one).  Kinds other than the four above are passed over, and so is a
 * cause past LAB_CUPTI_CAUSE_COUNT in h2d_by_cause (its bytes still count
 * in h2d_bytes).  Returns the records counted.
 */
static inline size_t lab_cupti_count(struct lab_cupti_window w, struct lab_cupti_counts *k)
{
	size_t i, n = 0;

	memset(k, 0, sizeof(*k));
	pthread_mutex_lock(&lab_cupti_lock_);
	for (i = 0; i < lab_cupti_st_.nrec; i++) {
		const struct lab_cupti_record_ *r = &lab_cupti_st_.rec[i];

		if (r->start < w.start || r->start > w.end)
			continue;
		n++;
		switch (r->kind) {
		case LAB_CUPTI_GPU_PAGE_FAULT:
			k->gpu_faults++;
			k->gpu_fault_groups += r->value;
			break;
		case LAB_CUPTI_BYTES_HTOD:
			k->h2d_bytes += r->value;
			k->h2d_xfers++;
			if (r->flags < LAB_CUPTI_CAUSE_COUNT)
				k->h2d_by_cause[r->flags] += r->value;
			break;
		case LAB_CUPTI_BYTES_DTOH:
			k->d2h_bytes += r->value;
			k->d2h_xfers++;
			break;
		case LAB_CUPTI_CPU_PAGE_FAULT:
			k->cpu_faults++;
			break;
		default:
			n--;
			break;
		}
	}
	pthread_mutex_unlock(&lab_cupti_lock_);
	return n;
}

/*
 * k as one line for the narrative, with the fault records per 64 KiB of a
 * region of `bytes`: "N GPU fault records (G fault groups), F per 64 KiB of
 * region; H2D ... in X transfers (on demand ..., driver prefetch ...,
 * cudaMemPrefetchAsync ...); D2H ...; CPU faults C".  Returns buf.
 */
static inline const char *lab_cupti_counts_text(const struct lab_cupti_counts *k,
						uint64_t bytes, char *buf, size_t len)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	double pages = (double)(bytes / (64 * KiB));

	snprintf(buf, len, "%" PRIu64 " GPU fault records (%" PRIu64 " fault groups), "
		 "%.3f per 64 KiB of region; H2D %s in %" PRIu64 " transfers (on demand %s, "
		 "driver prefetch %s, cudaMemPrefetchAsync %s); D2H %s; CPU faults %" PRIu64,
		 k->gpu_faults, k->gpu_fault_groups, (double)k->gpu_faults / pages,
		 lab_fmt_size(k->h2d_bytes, b1, sizeof(b1)), k->h2d_xfers,
		 lab_fmt_size(k->h2d_by_cause[LAB_CUPTI_CAUSE_COHERENCE], b2, sizeof(b2)),
		 lab_fmt_size(k->h2d_by_cause[LAB_CUPTI_CAUSE_SPECULATIVE], b3, sizeof(b3)),
		 lab_fmt_size(k->h2d_by_cause[LAB_CUPTI_CAUSE_USER], b4, sizeof(b4)),
		 lab_fmt_size(k->d2h_bytes, b5, sizeof(b5)), k->cpu_faults);
	return buf;
}

/* Notes "fault counts unavailable: <why>"; returns -1. */
static inline int lab_cupti_say_why_(struct lab *L)
{
	lab_note(L, MSG("05.say-1",
		"fault counts unavailable: %s"), lab_cupti_why() ? lab_cupti_why() : "?");
	return -1;
}

/*
 * After collection stopped, with CUPTI's count of dropped records: notes
 * the dropped and the lost records (the counts are low); when no record
 * came at all, marks the counts unavailable and says so.  Called by
 * lab_cupti_end; public for the unit tests.
 */
static inline void lab_cupti_collected(struct lab *L, uint64_t dropped)
{
	lab_cupti_st_.dropped = dropped + lab_cupti_st_.lost;
	if (dropped)
		lab_note(L, MSG("05.say-2",
			"CUPTI dropped %" PRIu64 " Unified Memory records: counts are low"),
			 dropped);
	if (lab_cupti_st_.lost)
		lab_note(L, MSG("05.say-3",
			"%" PRIu64 " Unified Memory records lost (out of memory)"),
			 lab_cupti_st_.lost);
	if (lab_cupti_records() == 0) {
		lab_cupti_unusable("CUPTI delivered no Unified Memory records");
		lab_cupti_say_why_(L);
	}
}

/*
 * Count window w into *k and note it: "NAME counted: <lab_cupti_counts_text
 * for a region of bytes>".  Returns the GPU fault and transfer records in
 * it: what shows that the window caught the case at all.
 */
static inline uint64_t lab_cupti_note_window(struct lab *L, const char *name,
					     struct lab_cupti_window w, uint64_t bytes,
					     struct lab_cupti_counts *k)
{
	char text[400];

	lab_cupti_count(w, k);
	lab_note(L, MSG("05.say-4",
		"%s counted: %s"), name, lab_cupti_counts_text(k, bytes, text, sizeof(text)));
	return k->gpu_faults + k->h2d_xfers + k->d2h_xfers;
}

/*
 * After lab_cupti_note_window on every window, with the sum of what they
 * returned: when that is 0 (the clocks did not meet, or the records went
 * elsewhere) the counts are unusable; marks them so, saying how many there
 * were in all, and notes it.  Returns 0, or -1 then.
 */
static inline int lab_cupti_windows_seen(struct lab *L, uint64_t seen)
{
	struct lab_cupti_counts all;

	if (seen)
		return 0;
	lab_cupti_count(lab_cupti_all, &all);
	lab_cupti_unusable("no record fell inside a timed window (%" PRIu64 " GPU faults, "
			   "%" PRIu64 " H2D transfers in all)", all.gpu_faults, all.h2d_xfers);
	lab_note(L, MSG("05.say-5",
		"fault counts unusable: %s"), lab_cupti_why());
	return -1;
}

/* Records CUPTI dropped or this store lost, as of the last lab_cupti_end. */
static inline uint64_t lab_cupti_dropped(void)
{
	return lab_cupti_st_.dropped;
}

/* ------------------------------------------------------------------------ */
/* CUPTI, loaded with dlopen                                                 */

#if LAB_HAVE_CUPTI
#include <dlfcn.h>
#include <cupti.h>
#include "lab_cuda.h"

#ifdef __cplusplus
#define LAB_CUPTI_ASSERT_(c) static_assert(c, #c)
#else
#define LAB_CUPTI_ASSERT_(c) _Static_assert(c, #c)
#endif
LAB_CUPTI_ASSERT_(LAB_CUPTI_BYTES_HTOD ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD);
LAB_CUPTI_ASSERT_(LAB_CUPTI_BYTES_DTOH ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH);
LAB_CUPTI_ASSERT_(LAB_CUPTI_CPU_PAGE_FAULT ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT);
LAB_CUPTI_ASSERT_(LAB_CUPTI_GPU_PAGE_FAULT ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT);
LAB_CUPTI_ASSERT_(LAB_CUPTI_CAUSE_USER ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER);
LAB_CUPTI_ASSERT_(LAB_CUPTI_CAUSE_COHERENCE ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE);
LAB_CUPTI_ASSERT_(LAB_CUPTI_CAUSE_SPECULATIVE ==
		  (int)CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH);

static struct {
	void *lib;
	__typeof__(&cuptiActivityRegisterCallbacks) register_callbacks;
	__typeof__(&cuptiActivityConfigureUnifiedMemoryCounter) configure_um;
	__typeof__(&cuptiActivityEnable) enable;
	__typeof__(&cuptiActivityDisable) disable;
	__typeof__(&cuptiActivityFlushAll) flush_all;
	__typeof__(&cuptiActivityGetNextRecord) next_record;
	__typeof__(&cuptiActivityGetNumDroppedRecords) dropped;
	__typeof__(&cuptiGetTimestamp) timestamp;
	__typeof__(&cuptiGetResultString) result_string;
	__typeof__(&cuptiGetVersion) version;
} lab_cupti_fn_;

#define LAB_CUPTI_BUFFER_BYTES (8 * MiB)

static inline void lab_cupti_fail_(const char *what, CUptiResult r)
{
	const char *s = NULL;

	if (lab_cupti_fn_.result_string)
		lab_cupti_fn_.result_string(r, &s);
	lab_cupti_unusable("%s: %s (%d)", what, s ? s : "?", (int)r);
}

static void CUPTIAPI lab_cupti_buffer_requested_(uint8_t **buf, size_t *size,
						 size_t *max_records)
{
	*buf = (uint8_t *)aligned_alloc(8, LAB_CUPTI_BUFFER_BYTES);
	*size = *buf ? LAB_CUPTI_BUFFER_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI lab_cupti_buffer_completed_(CUcontext ctx, uint32_t stream, uint8_t *buf,
						 size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;

	while (buf && valid && lab_cupti_fn_.next_record(buf, valid, &rec) == CUPTI_SUCCESS)
		if (rec->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
			const CUpti_ActivityUnifiedMemoryCounter3 *u =
				(const CUpti_ActivityUnifiedMemoryCounter3 *)rec;

			lab_cupti_record((uint32_t)u->counterKind, u->flags, u->value, u->start);
		}
	free(buf);
}

#define LAB_CUPTI_SYM_(field, name)                                                \
	(lab_cupti_fn_.field = (__typeof__(lab_cupti_fn_.field))dlsym(lab_cupti_fn_.lib, name))

/* libcupti of this CUDA major, then the usual places; every symbol used. */
static inline int lab_cupti_load_(void)
{
	char soname[32];
	const char *paths[] = { soname, "/usr/local/cuda/lib64/libcupti.so",
				"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so", "libcupti.so" };
	size_t i;

	snprintf(soname, sizeof(soname), "libcupti.so.%d", CUDART_VERSION / 1000);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && !lab_cupti_fn_.lib; i++)
		lab_cupti_fn_.lib = dlopen(paths[i], RTLD_NOW | RTLD_LOCAL);
	if (!lab_cupti_fn_.lib) {
		lab_cupti_unusable("libcupti not found (%s)", dlerror());
		return -1;
	}
	if (!LAB_CUPTI_SYM_(register_callbacks, "cuptiActivityRegisterCallbacks") ||
	    !LAB_CUPTI_SYM_(configure_um, "cuptiActivityConfigureUnifiedMemoryCounter") ||
	    !LAB_CUPTI_SYM_(enable, "cuptiActivityEnable") ||
	    !LAB_CUPTI_SYM_(disable, "cuptiActivityDisable") ||
	    !LAB_CUPTI_SYM_(flush_all, "cuptiActivityFlushAll") ||
	    !LAB_CUPTI_SYM_(next_record, "cuptiActivityGetNextRecord") ||
	    !LAB_CUPTI_SYM_(dropped, "cuptiActivityGetNumDroppedRecords") ||
	    !LAB_CUPTI_SYM_(timestamp, "cuptiGetTimestamp") ||
	    !LAB_CUPTI_SYM_(result_string, "cuptiGetResultString") ||
	    !LAB_CUPTI_SYM_(version, "cuptiGetVersion")) {
		lab_cupti_unusable("libcupti lacks a symbol (%s)", dlerror());
		return -1;
	}
	return 0;
}

/* The record layout parsed is the headers': refuse another major API. */
static inline int lab_cupti_check_version_(void)
{
	uint32_t v = 0;
	CUptiResult r = lab_cupti_fn_.version(&v);

	if (r != CUPTI_SUCCESS) {
		lab_cupti_fail_("cuptiGetVersion", r);
		return -1;
	}
	if (v / 10000 != CUPTI_API_VERSION / 10000) {
		lab_cupti_unusable("libcupti API version %u, built against %u", v,
				   (unsigned)CUPTI_API_VERSION);
		return -1;
	}
	return 0;
}

/*
 * Load libcupti and configure the counters for CUDA device `dev`: GPU page
 * faults, bytes host to device and device to host, CPU page faults (left
 * out when CUPTI refuses the four).  Call after the driver is up and
 * before the managed memory to be counted exists; collection starts only
 * in lab_cupti_begin.  Returns 0, or -1 (not an error: lab_cupti_why says
 * why the counts are missing).
 */
static inline int lab_cupti_setup(int dev)
{
	static const CUpti_ActivityUnifiedMemoryCounterKind kinds[4] = {
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
		CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
	};
	CUpti_ActivityUnifiedMemoryCounterConfig cfg[4];
	CUptiResult r;
	int i;

	if (lab_cupti_load_() < 0 || lab_cupti_check_version_() < 0)
		return -1;
	r = lab_cupti_fn_.register_callbacks(lab_cupti_buffer_requested_,
					     lab_cupti_buffer_completed_);
	if (r != CUPTI_SUCCESS) {
		lab_cupti_fail_("cuptiActivityRegisterCallbacks", r);
		return -1;
	}
	memset(cfg, 0, sizeof(cfg));
	for (i = 0; i < 4; i++) {
		cfg[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
		cfg[i].kind = kinds[i];
		cfg[i].deviceId = (uint32_t)dev;
		cfg[i].enable = 1;
	}
	r = lab_cupti_fn_.configure_um(cfg, 4);
	if (r != CUPTI_SUCCESS) /* CPU fault counts are the least needed */
		r = lab_cupti_fn_.configure_um(cfg, 3);
	if (r != CUPTI_SUCCESS) {
		lab_cupti_fail_("cuptiActivityConfigureUnifiedMemoryCounter", r);
		return -1;
	}
	lab_cupti_st_.why[0] = '\0';
	return 0;
}

/*
 * Collection on.  Returns 0, or -1 when the counts are unavailable, after
 * noting "fault counts unavailable: <why>".
 */
static inline int lab_cupti_begin(struct lab *L)
{
	CUptiResult r;

	if (lab_cupti_why())
		return lab_cupti_say_why_(L);
	r = lab_cupti_fn_.enable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	if (r != CUPTI_SUCCESS) {
		lab_cupti_fail_("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)", r);
		return lab_cupti_say_why_(L);
	}
	lab_cupti_st_.on = 1;
	return 0;
}

/*
 * Collection off, after cudaDeviceSynchronize (CUDA_CHECK), and every
 * record received; then lab_cupti_collected.  A no-op when collection is
 * not on.
 */
static inline void lab_cupti_end(struct lab *L)
{
	size_t dropped = 0;

	if (!lab_cupti_st_.on)
		return;
	CUDA_CHECK(L, cudaDeviceSynchronize());
	lab_cupti_fn_.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	lab_cupti_fn_.disable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
	lab_cupti_fn_.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	lab_cupti_st_.on = 0;
	if (lab_cupti_fn_.dropped(NULL, 0, &dropped) != CUPTI_SUCCESS)
		dropped = 0;
	lab_cupti_collected(L, dropped);
}

/* CUPTI's clock (ns) while collecting, else 0. */
static inline uint64_t lab_cupti_now(void)
{
	uint64_t t = 0;

	if (lab_cupti_st_.on)
		lab_cupti_fn_.timestamp(&t);
	return t;
}

#else /* !LAB_HAVE_CUPTI: the counts are unavailable, and say so */
static inline int lab_cupti_setup(int dev)
{
	(void)dev;
	return -1;
}
static inline int lab_cupti_begin(struct lab *L) { return lab_cupti_say_why_(L); }
static inline void lab_cupti_end(struct lab *L) { (void)L; }
static inline uint64_t lab_cupti_now(void) { return 0; }
#endif

#endif /* DMALAB_LAB_CUPTI_H */
