/*
 * lab-11: swap the KV cache back, or recompute it?
 *
 * ch1 E2 offloads 32K tokens of a 70B model's context (80 layers, 8 KV
 * heads, head dim 128, BF16) to CPU memory and prices bringing the KV cache
 * back over PCIe (0.21 s at 50 GB/s) against recomputing the prefill (7.6 s
 * at 600 TFLOPS); for a few hundred tokens, it says, recomputing wins.
 *
 * 11.1-11.3 check that arithmetic on the model options, in every build.  The
 * GPU part measures this machine's side: the request's KV swapped back from
 * pinned memory as a paged cache holds it (copy_blocks: a copy per
 * 16-token block, layer, K and V, into scattered slots) and as one copy;
 * cuBLAS GEMMs of a 70B layer's shape, 16 to 8192 tokens (gemm_sample):
 * what recomputed tokens add to a decode step (11.4); 1 GiB copies for 11.5.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab.h"
#include "need.h"

/* The chapter's case (ch1 E2 and its bandwidth table). */
#define CH_LAYERS 80
#define CH_KV_HEADS 8
#define CH_HEAD_DIM 128
#define CH_DTYPE_BYTES 2
#define CH_PARAMS 70e9
#define CH_TOKENS 32768       /* "32K tokens" */
#define CH_LINK_BPS 50e9      /* PCIe 5.0, "about 50 GB/s" */
#define CH_FLOPS 600e12       /* "about 600 TFLOPS" */
#define CH_WEIGHTS 16e9       /* the table's 16 GB of weights */

/*
 * What `make selftest` breaks, one field per mechanism a claim is about.  The
 * sabotage build sets every field to its broken value before run(), or only
 * the fields of the claims it is asked to break (labs/README.md, section 6);
 * the experiment reads K, never the build's flag.
 */
static struct knobs {
	int kv_tensors;       /* 11.1 11.2: tensors per token and layer (K, V): planes too */
	int flop_per_param;   /* 11.3: a multiply and an add per parameter and token */
	int tensor_core_gemm; /* 11.4: the GEMMs run in bf16 on the tensor cores */
	int h2d_from_pinned;  /* 11.5: the pinned path copies from the pinned swap space */
} K = { .kv_tensors = 2, .flop_per_param = 2, .tensor_core_gemm = 1, .h2d_from_pinned = 1 };

static const struct lab_knob knobs[] = {
	LAB_KNOB(K.kv_tensors, 1, "11.1 11.2"),
	LAB_KNOB(K.flop_per_param, 1, "11.3"),
	LAB_KNOB(K.tensor_core_gemm, 0, "11.4"),
	LAB_KNOB(K.h2d_from_pinned, 0, "11.5"),
	{ NULL },
};

static const struct claim_spec claims[] = {
	{ "11.1", "ch1.E2",
	  "the KV cache of the chapter's 70B model (80 layers, 8 KV heads, head dim 128, BF16) "
	  "takes 327,680 bytes per token",
	  "ch1 E2: 80 layers x 8 heads x 128 dims x 2 (K and V) x 2 bytes = 327,680 bytes",
	  "R11 an exact figure -> = 327680 bytes, from the model options (another model skips)",
	  WANT_INT(327680, "bytes"),
	  "the size counts K only, not K and V" },
	{ "11.2", "ch1.E2",
	  "bringing 32K tokens of that KV cache back at 50 GB/s takes about 0.21 s",
	  "ch1 E2: 32,768 tokens are 10 GiB, about 10.7 GB; 10.7 GB / 50 GB/s = 0.21 s",
	  "R1 'about 0.21 s' -> near 0.21 s +- 25 %, the chapter's arithmetic on the model "
	  "options; this machine's copies, in blocks and as one, are in the note",
	  WANT_NEAR(0.21, 0.25, "s"),
	  "the size counts K only, not K and V, so half the bytes move" },
	{ "11.3", "ch1.E2",
	  "recomputing the 32K-token prefill at 600 TFLOPS takes about 7.6 s",
	  "ch1 E2: 2 x 70e9 x 32,768 = 4.6e15 FLOP; at 600 TFLOPS about 7.6 s",
	  "R1 'about 7.6 s' -> near 7.6 s +- 25 %, the chapter's arithmetic on --params; "
	  "this machine's cuBLAS bf16 rate gives its own figure in the note",
	  WANT_NEAR(7.6, 0.25, "s"),
	  "the prefill counts one FLOP per parameter and token (the multiply-add as one)" },
	{ "11.4", "ch1.E2",
	  "below a context of a few hundred tokens recomputing is cheaper than swapping back; "
	  "above it swapping back wins",
	  "ch1 E2: a few hundred tokens are cheap to recompute, batch with other requests and "
	  "avoid the copy's fixed cost; long contexts are far cheaper to swap back",
	  "R2 'a few hundred tokens' -> the crossover in [100, 1000] tokens: swap-back as "
	  "measured in 16-token blocks, recompute as the time its tokens add to a decode step "
	  "of 16 tokens, which streams the weights anyway (measured GEMMs)",
	  WANT_RANGE(100, 1000, "tokens"),
	  "the GEMMs run in fp32 on the CUDA cores (no tensor cores), so a step has little "
	  "spare compute and swapping back wins from a few tens of tokens" },
	{ "11.5", "ch1.table ch1.E2",
	  "16 GB of weights from pinned memory take the table's time for this link "
	  "(640 ms PCIe 4.0 x16, 320 ms PCIe 5.0 x16)",
	  "ch1 bandwidth table: 16 GB over five paths; pinned PCIe 4.0 x16 25 GB/s (640 ms), "
	  "PCIe 5.0 x16 50 GB/s (320 ms)",
	  "R1 the table's time -> measured / table time near 1 +- 25 %; links the table lacks "
	  "skip; the pageable and block-wise paths are in the note",
	  WANT_NEAR(1, 0.25, "x"),
	  "the pinned path copies from pageable memory" },
	{ NULL, NULL, NULL, NULL, NULL, WANT_TRUE, NULL }
};

#define QUICK_CONTEXT 2048
#define MAX_BLOCK_TOKENS 256

struct model {
	long layers, kv_heads, head_dim, dtype_bytes, block_tokens, context;
	double params;
};

static struct model M; /* the options put the model here */
static const struct lab_extra_opt extra_opts[] = {
	LAB_OPT_LONG("layers", M.layers, CH_LAYERS, CH_LAYERS, 1, 1024, "transformer layers"),
	LAB_OPT_LONG("kv-heads", M.kv_heads, CH_KV_HEADS, CH_KV_HEADS, 1, 1024,
		     "KV heads per layer"),
	LAB_OPT_LONG("head-dim", M.head_dim, CH_HEAD_DIM, CH_HEAD_DIM, 1, 4096,
		     "dimensions per head"),
	LAB_OPT_LONG("dtype-bytes", M.dtype_bytes, CH_DTYPE_BYTES, CH_DTYPE_BYTES, 1, 8,
		     "bytes per KV element, 1, 2, 4 or 8 (2: BF16)"),
	LAB_OPT_TEXT("params", "N", "parameters, with an optional B or M suffix (default 70B)"),
	LAB_OPT_LONG("context", M.context, CH_TOKENS, QUICK_CONTEXT, 1, 1L << 24,
		     "tokens swapped back in full"),
	LAB_OPT_LONG("block-tokens", M.block_tokens, 16, 16, 1, MAX_BLOCK_TOKENS,
		     "tokens per block of the paged cache"),
	{ NULL }
};

static int check_opts(const struct lab *L);

static const struct lab_spec spec = {
	.id = "11",
	.title = "swap the KV cache back, or recompute it?",
	.topic = "what bringing an offloaded KV cache back over PCIe costs against recomputing "
		 "its prefill, and at what context length the answer turns",
	.timeout_s = 90,
	.needs = { 1, 1, 0 },
	.claims = claims,
	.extra_opts = extra_opts,
	.default_iters = 7,
	.check_opts = check_opts,
	.knobs = knobs,
};

/* ------------------------------------------------------------------------ */
/* The model and its arithmetic                                              */

/* --params: a count with an optional B (1e9) or M (1e6) suffix; 0 or 2. */
static int read_params(const struct lab *L, double *out)
{
	const char *s = lab_opt(L, "params");
	char *end = NULL;

	*out = s ? strtod(s, &end) : CH_PARAMS;
	if (s && (*end == 'B' || *end == 'M'))
		*out *= *end++ == 'B' ? 1e9 : 1e6;
	if (s && (end == s || *end || !(*out >= 1e6 && *out <= 1e15)))
		return lab_usage_error(L, "params", s, "not a count from 1M to 1e15 "
				       "(digits with an optional B or M suffix)");
	return 0;
}

/* What the options' ranges cannot say: 0, or 2 after one line on stderr. */
static int check_model(const struct lab *L, struct model *m)
{
	if (read_params(L, &m->params))
		return 2;
	if (m->dtype_bytes & (m->dtype_bytes - 1)) /* FP8, BF16/FP16, FP32, FP64 */
		return lab_usage_error(L, "dtype-bytes", lab_opt(L, "dtype-bytes"), "must be 1, 2, 4 or 8");
	if (m->context < m->block_tokens)
		return lab_usage_error(L, "context", lab_opt(L, "context"),
				       "must be at least --block-tokens (%ld)", m->block_tokens);
	return 0;
}

/* Bytes of K and V a token takes in all layers (11.1). */
static uint64_t kv_bytes_per_token(const struct model *m)
{
	return (uint64_t)m->layers * K.kv_tensors * m->kv_heads * m->head_dim * m->dtype_bytes;
}

/* FLOPs of a prefill of `tokens` by the chapter's rule, 2 x params x tokens (11.3). */
static double prefill_flop(const struct model *m, double tokens)
{
	return K.flop_per_param * m->params * tokens;
}

/* Blocks of `tokens`, the last one partly filled. */
static uint64_t blocks_of(const struct model *m, uint64_t tokens)
{
	return (tokens + m->block_tokens - 1) / m->block_tokens;
}

/* spec.check_opts: the options, and sizes that cannot overflow 64 bits. */
static int check_opts(const struct lab *L)
{
	uint64_t b;

	if (check_model(L, &M))
		return 2;
	if (need_mul(kv_bytes_per_token(&M), blocks_of(&M, M.context) * M.block_tokens, &b))
		return lab_usage_error(L, "context", lab_opt(L, "context"), "too large for this "
				       "model: the KV cache would pass 2^64 bytes");
	return 0;
}

static int chapters_kv_model(const struct model *m)
{
	return m->layers == CH_LAYERS && m->kv_heads == CH_KV_HEADS &&
	       m->head_dim == CH_HEAD_DIM && m->dtype_bytes == CH_DTYPE_BYTES;
}

/* The chapter's lines of the figure: its rates on this model. */
static void chapter_series(struct lab *L, const struct model *m)
{
	double swap_s, rec_s, n;
	struct lab_stats s;

	for (n = m->block_tokens; n <= CH_TOKENS; n *= 2) {
		swap_s = n * (double)kv_bytes_per_token(m) / CH_LINK_BPS;
		rec_s = prefill_flop(m, n) / CH_FLOPS;
		lab_stats_from(&s, "chapter_swap_s", "s", &swap_s, 1, 1e-12);
		lab_series_point(L, "chapter_swap_s", "tokens", n, &s);
		lab_stats_from(&s, "chapter_recompute_s", "s", &rec_s, 1, 1e-12);
		lab_series_point(L, "chapter_recompute_s", "tokens", n, &s);
	}
}

/* What this machine measured, for the notes of 11.2 and 11.3. */
struct machine_notes {
	char swap[320], recompute[320];
};

/* 11.1-11.3: the chapter's arithmetic on the model options, in every build. */
static void decide_arithmetic(struct lab *L, const struct model *m,
			      const struct machine_notes *here)
{
	uint64_t kvb = kv_bytes_per_token(m);
	double bytes = (double)kvb * CH_TOKENS;
	int i;

	lab_fact_num(L, "kv_bytes_per_token", (double)kvb, "bytes");
	for (i = 0; i < 2 && !chapters_kv_model(m); i++)
		claim_skip(L, i ? "11.2" : "11.1", SKIP_UNSUPPORTED, "the model (%ld layers, %ld KV "
			   "heads, head dim %ld, %ld-byte elements) is not the chapter's",
			   m->layers, m->kv_heads, m->head_dim, m->dtype_bytes);
	if (chapters_kv_model(m)) {
		claim_note(L, "%ld layers x %d (K, V) x %ld heads x %ld dims x %ld bytes",
			   m->layers, K.kv_tensors, m->kv_heads, m->head_dim, m->dtype_bytes);
		claim_check_int(L, "11.1", (long long)kvb);
		claim_note(L, "%d tokens x %llu bytes = %.2f GB at 50 GB/s; this machine: %s",
			   CH_TOKENS, (unsigned long long)kvb, bytes / 1e9, here->swap);
		claim_check(L, "11.2", lab_est_exact(bytes / CH_LINK_BPS));
	}
	if (m->params != CH_PARAMS) {
		claim_skip(L, "11.3", SKIP_UNSUPPORTED, "--params %.4g is not the chapter's 70e9",
			   m->params);
		return;
	}
	claim_note(L, "%d x %.4ge9 x %d = %.3g FLOP at 600 TFLOPS; this machine: %s",
		   K.flop_per_param, m->params / 1e9, CH_TOKENS, prefill_flop(m, CH_TOKENS),
		   here->recompute);
	claim_check(L, "11.3", lab_est_exact(prefill_flop(m, CH_TOKENS) / CH_FLOPS));
}

#if DMALAB_HAVE_CUDA
#include "lab_buffers_cuda.h"
#include "lab_copy_cuda.h"
#include "gemm.h"
#include "paged.h"

#define W_ROWS 28672          /* one weight matrix of a 70B layer's MLP (8192 -> 28672) */
#define W_COLS 8192
#define RATE_TOKENS 8192      /* a prefill chunk large enough to be compute-bound */
#define GRID_MAX_TOKENS 4096  /* contexts of the crossover: one block .. this */
#define QUICK_GRID_MAX 1024
#define MAX_GRID 16
#define GRID_SAMPLES 11       /* a 1 - 0.05/19 interval needs 10 or more */
#define FULL_SAMPLES 3        /* the full swap-backs and pageable H2D: facts, no claim's */
#define RATE_BYTES (1 * GiB)  /* 11.5's pinned and pageable copies */
#define QUICK_RATE_BYTES (256 * MiB)
#define GPU_SPARE (512 * MiB)
/* The GEMMs' type: bf16 on the tensor cores; K.tensor_core_gemm broken, fp32
 * without TF32, on the CUDA cores only. */
#define GEMM_TYPE (K.tensor_core_gemm ? LAB_GEMM_BF16 : LAB_GEMM_FP32)

struct bench {
	struct lab *L;
	struct model m;
	struct lab_paged k;         /* the pool's layout and block table */
	uint64_t grid[MAX_GRID];    /* tokens of the crossover's contexts */
	int ngrid, have_gemm;       /* grid points; cuBLAS ran (else gemm.why says why not) */
	uint64_t pool_bytes, rate_bytes, full_bytes;
	struct lab_copy_rig rig;    /* the pool (device), stream, events */
	struct lab_host kv, page;   /* pinned (registered) swap space; pageable for 11.5 */
	struct lab_gemm gemm;
	struct lab_stats t[MAX_GRID], t_ref, t_rate; /* s per GEMM: block + n, block, rate */
	struct lab_stats swap[MAX_GRID], full, one;   /* s per swap-back */
	struct lab_stats pin_rate, page_rate;         /* GB/s */
	double tflops, peak_tflops;
	char peak_how[200];
	struct lab_copy_link link;
	struct machine_notes here;
};

/* The grid, the pool (the largest request's blocks) and its block table. */
static void plan(struct bench *b)
{
	const struct lab_opts *o = lab_options(b->L);
	const struct model *m = &b->m;
	uint64_t top = o->quick ? QUICK_GRID_MAX : GRID_MAX_TOKENS, n;
	uint64_t pool = blocks_of(m, (uint64_t)m->context > top ? m->context : top);
	uint64_t bb = (uint64_t)m->block_tokens * m->kv_heads * m->head_dim * m->dtype_bytes;

	for (n = m->block_tokens; n <= top && b->ngrid < MAX_GRID; n *= 2)
		b->grid[b->ngrid++] = n;
	if (lab_paged_init(&b->k, bb, (uint64_t)m->layers * K.kv_tensors, pool, (uint32_t)o->seed))
		lab_error(b->L, "no block table for %llu blocks", (unsigned long long)pool);
	b->full_bytes = b->k.planes * blocks_of(m, m->context) * bb;
	b->pool_bytes = b->k.planes * pool * bb;
	b->rate_bytes = o->quick ? QUICK_RATE_BYTES : RATE_BYTES;
	if (b->pool_bytes < b->rate_bytes)
		b->pool_bytes = b->rate_bytes;
}

/* NULL when the buffers fit, else the skip reason with detail. */
static const char *memory_short(struct bench *b, char *detail, size_t len)
{
	uint64_t free_b, need = need_bytes(1, b->pool_bytes, GPU_SPARE +
		lab_gemm_bytes(W_ROWS, W_COLS, RATE_TOKENS, GEMM_TYPE));
	char a[32], c[32];

	lab_cuda_mem_info(b->L, &free_b, NULL);
	if (free_b >= need)
		return need_host_short(b->L, 2, b->pool_bytes + b->rate_bytes, detail, len);
	snprintf(detail, len, "%s free on the GPU, need %s", lab_fmt_size(free_b, a, 32),
		 lab_fmt_size(need, c, 32));
	return SKIP_GPU_TOO_SMALL;
}

/* ------------------------------------------------------------------------ */
/* The measured operations: the recompute's GEMM, the swap-back's copies      */

/*
 * lab_run_fn: g->reps GEMMs of g->tokens tokens between two events (s):
 * out = W . act, a layer's weights applied to the tokens recomputed.  bf16
 * in and out with fp32 sums runs on the tensor cores; fp32 PEDANTIC forbids
 * TF32, which leaves the CUDA cores.
 */
static double gemm_sample(void *arg)
{
	struct lab_gemm *g = (struct lab_gemm *)arg;
	int bf16 = g->type == LAB_GEMM_BF16, i;
	cudaDataType ty = bf16 ? CUDA_R_16BF : CUDA_R_32F;
	cublasComputeType_t ct = bf16 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32F_PEDANTIC;
	float one = 1, zero = 0;
	cublasStatus_t st;

	cuda_timer_start(g->L, g->timer, g->stream);
	for (i = 0; i < g->reps; i++) {
		st = g->gemm_ex(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->rows, g->tokens, g->cols, &one,
				g->w, ty, g->rows, g->act, ty, g->cols, &zero, g->out, ty, g->rows,
				ct, CUBLAS_GEMM_DEFAULT);
		if (st != CUBLAS_STATUS_SUCCESS)
			lab_error(g->L, "cublasGemmEx(%d x %d x %d): %s", g->rows, g->tokens,
				  g->cols, g->status_name ? g->status_name(st) : "failed");
	}
	cuda_timer_stop(g->L, g->timer, g->stream);
	return cuda_timer_seconds(g->L, g->timer);
}

/*
 * Seconds per GEMM of `tokens` into *s, named `name` (static).  A few
 * tokens take microseconds, too few ticks of the events' clock, so a sample
 * holds enough GEMMs for LAB_GEMM_SAMPLE_S; 2 warm-up samples, then
 * `samples` at least and lab_measure's stopping rule.
 */
static void gemm_series(struct lab_gemm *g, const char *name, int tokens, int samples,
			struct lab_stats *s)
{
	struct lab_measure_cfg cfg = { 2, samples, 0.10, LAB_CUDA_EVENT_RES_S };

	g->tokens = tokens;
	g->reps = 1;
	gemm_sample(g);
	g->reps = lab_gemm_reps(gemm_sample(g), LAB_GEMM_SAMPLE_S, LAB_GEMM_MAX_REPS);
	lab_measure(g->L, name, gemm_sample, g, &cfg, s);
	lab_stats_scale(s, 1.0 / g->reps, "s");
}

/* The swap-back a paged cache makes (vLLM's swap_blocks): one cudaMemcpyAsync
 * per block of every plane, from the request on the host into the block's
 * slot of the pool, queued on c's stream. */
static void copy_blocks(const struct lab_paged_copy *c)
{
	const struct lab_paged *k = c->k;

	for (uint64_t p = 0; p < k->planes; p++) {
		for (uint64_t b = 0; b < c->blocks; b++) {
			char *slot = c->dev + lab_paged_dev_off(k, p, b);
			const char *block = c->host + lab_paged_host_off(k, p, c->blocks, b);

			CUDA_CHECK(c->L, cudaMemcpyAsync(slot, block, k->block_bytes,
							 cudaMemcpyHostToDevice, c->stream));
		}
	}
}

/* lab_run_fn: the request to the GPU in blocks, or (c->one_copy) the same
 * bytes as one copy; seconds between two events around the calls. */
static double swap_back_sample(void *arg)
{
	struct lab_paged_copy *c = (struct lab_paged_copy *)arg;
	uint64_t bytes = c->k->planes * c->blocks * c->k->block_bytes;

	cuda_timer_start(c->L, c->timer, c->stream);
	if (c->one_copy)
		CUDA_CHECK(c->L, cudaMemcpyAsync(c->dev, c->host, bytes, cudaMemcpyHostToDevice,
						 c->stream));
	else
		copy_blocks(c);
	cuda_timer_stop(c->L, c->timer, c->stream);
	return cuda_timer_seconds(c->L, c->timer);
}

/* One swap-back in blocks, checked: the words not where the block table
 * puts them (0: all in place), or -1 when a block is not whole words. */
static long long swap_back_verify(struct lab_paged_copy *c, uint32_t seed)
{
	struct lab_paged_check chk;

	if (lab_paged_check_begin(c, seed, &chk) < 0)
		return -1;
	copy_blocks(c);
	return lab_paged_check_end(c, &chk);
}

/* GEMMs: a step of one block, that step plus each grid context, RATE_TOKENS. */
static void measure_gemms(struct bench *b)
{
	int i, bt = (int)b->m.block_tokens;

	lab_progress(b->L, "GEMMs of %dx%d weights, 1 to %d tokens", W_ROWS, W_COLS, RATE_TOKENS);
	gemm_series(&b->gemm, "gemm_step_s", bt, GRID_SAMPLES, &b->t_ref);
	for (i = 0; i < b->ngrid; i++)
		gemm_series(&b->gemm, "gemm_step_plus_s", bt + (int)b->grid[i], GRID_SAMPLES,
			    &b->t[i]);
	gemm_series(&b->gemm, "gemm_rate_s", RATE_TOKENS, lab_options(b->L)->iters, &b->t_rate);
	b->tflops = 2.0 * W_ROWS * W_COLS * RATE_TOKENS / b->t_rate.median / 1e12;
	lab_gemm_close(&b->gemm);
}

/* The request verified (that swap-back warms the full ones up); swapped back in
 * full (in blocks, as one copy); at each grid point. */
static void measure_swaps(struct bench *b)
{
	struct lab_measure_cfg grid = { 2, GRID_SAMPLES, 0.10, LAB_CUDA_EVENT_RES_S };
	struct lab_measure_cfg full = { -1, FULL_SAMPLES, 0.10, LAB_CUDA_EVENT_RES_S, FULL_SAMPLES };
	struct lab_paged_copy c = { b->L, &b->k, (const char *)b->kv.p, (char *)b->rig.dev,
				    blocks_of(&b->m, b->m.context), 0, b->rig.stream,
				    &b->rig.timer };
	long long bad;
	int i;

	lab_progress(b->L, "verifying a swap-back of %ld tokens in blocks", b->m.context);
	bad = swap_back_verify(&c, (uint32_t)lab_options(b->L)->seed);
	if (bad > 0)
		lab_error(b->L, "paged swap-back: %lld words not where their block goes", bad);
	lab_note(b->L, bad < 0 ? "paged swap-back unverified: a block is not whole words" :
		 "verified: each block of the request landed in its slot of every plane");
	lab_measure(b->L, "swap_full_paged_s", swap_back_sample, &c, &full, &b->full);
	c.one_copy = 1;
	lab_measure(b->L, "swap_full_onecopy_s", swap_back_sample, &c, &full, &b->one);
	c.one_copy = 0;
	for (i = 0; i < b->ngrid; i++) {
		lab_progress(b->L, "swap-back of %llu tokens", (unsigned long long)b->grid[i]);
		c.blocks = blocks_of(&b->m, b->grid[i]);
		lab_measure(b->L, "swap_paged_s", swap_back_sample, &c, &grid, &b->swap[i]);
		lab_series_point(b->L, "swap_paged_s", "tokens", (double)b->grid[i], &b->swap[i]);
	}
}

/* 11.5's paths: pinned (the swap space's first bytes) and pageable H2D (the note's). */
static void measure_paths(struct bench *b)
{
	void *pinned = K.h2d_from_pinned ? b->kv.p : b->page.p; /* broken: pageable */

	lab_progress(b->L, "pinned and pageable H2D copies");
	lab_copy_rate(&b->rig, "h2d_pinned", pinned, LAB_COPY_H2D, b->rate_bytes,
		      lab_options(b->L)->iters, &b->pin_rate);
	lab_copy_rate_upto(&b->rig, "h2d_pageable", b->page.p, LAB_COPY_H2D, b->rate_bytes,
			   FULL_SAMPLES, FULL_SAMPLES, &b->page_rate);
}

/* ------------------------------------------------------------------------ */
/* The decisions                                                             */

/* Matrices of the measured shape in the model: a pass = this x one GEMM. */
#define MATRICES(m) ((m)->params / ((double)W_ROWS * W_COLS))

/*
 * The crossover of d(n) = recompute(n) - swap(n) on the grid: the context
 * from which swapping back is cheaper at every later point, interpolated
 * from the point before; 0 when it already is at the first, infinite when
 * it never is.  Raising any d moves it down, so the ends of the d's
 * intervals give the ends of its interval.
 */
static double crossover(const uint64_t *n, const double *d, int k)
{
	int j = k;

	while (j > 0 && d[j - 1] > 0)
		j--;
	if (j == k || j == 0)
		return j ? INFINITY : 0;
	return n[j - 1] + (double)(n[j] - n[j - 1]) * -d[j - 1] / (d[j] - d[j - 1]);
}

/* The figure at grid point i: the step with the tokens in it, and what they add. */
static void recompute_series(struct bench *b, int i)
{
	double step[LAB_MAX_SAMPLES], added[LAB_MAX_SAMPLES], s = MATRICES(&b->m);
	struct lab_stats st;
	int k;

	for (k = 0; k < b->t[i].n; k++) {
		step[k] = s * b->t[i].samples[k];
		added[k] = s * (b->t[i].samples[k] - b->t_ref.median);
	}
	lab_stats_from(&st, "step_with_recompute_s", "s", step, b->t[i].n, LAB_CUDA_EVENT_RES_S);
	lab_series_point(b->L, "step_with_recompute_s", "tokens", (double)b->grid[i], &st);
	lab_stats_from(&st, "recompute_batched_s", "s", added, b->t[i].n, LAB_CUDA_EVENT_RES_S);
	lab_series_point(b->L, "recompute_batched_s", "tokens", (double)b->grid[i], &st);
}

/* 11.4: recompute(n) = matrices x (T(block + n) - T(block)), what n tokens add
 * to a decode step of one block (it streams the weights anyway), vs swap(n). */
static void decide_crossover(struct bench *b)
{
	int k = 2 * b->ngrid + 1, i, last = b->ngrid - 1; /* series behind it (Bonferroni) */
	double dv[MAX_GRID], dlo[MAX_GRID], dhi[MAX_GRID], s = MATRICES(&b->m);
	struct lab_est one = lab_est_median(&b->t_ref, k), d, x = { 0, 0, 0, 0 };

	for (i = 0; i < b->ngrid; i++) {
		d = lab_est_diff(lab_est_scale(lab_est_diff(lab_est_median(&b->t[i], k), one), s),
				 lab_est_median(&b->swap[i], k));
		dv[i] = d.value, dlo[i] = d.lo, dhi[i] = d.hi;
		x.too_short |= d.too_short;
		recompute_series(b, i);
	}
	x.value = crossover(b->grid, dv, b->ngrid);
	x.lo = crossover(b->grid, dhi, b->ngrid);
	x.hi = crossover(b->grid, dlo, b->ngrid);
	lab_fact_num(b->L, "crossover_tokens", x.value, "tokens");
	lab_fact_num(b->L, "crossover_lo_tokens", x.lo, "tokens");
	lab_fact_num(b->L, "crossover_hi_tokens", x.hi, "tokens");
	claim_stats(b->L, &b->t_ref);
	claim_stats(b->L, &b->t[0]);
	claim_stats(b->L, &b->swap[0]);
	claim_note(b->L, "%llu tokens: swap-back %.3g ms, recompute added to a step %.3g ms "
		   "(step %.3g); %llu tokens: %.3g vs %.3g ms; a pass = %.0f GEMMs of %dx%d",
		   (unsigned long long)b->grid[0], b->swap[0].median * 1e3,
		   s * (b->t[0].median - b->t_ref.median) * 1e3, s * b->t[0].median * 1e3,
		   (unsigned long long)b->grid[last], b->swap[last].median * 1e3,
		   s * (b->t[last].median - b->t_ref.median) * 1e3, s, W_ROWS, W_COLS);
	claim_check(b->L, "11.4", x);
}

/* 11.5 on the pinned path; every path's 16 GB time as a fact and in the note. */
static void decide_paths(struct bench *b)
{
	const struct lab_copy_link *k = &b->link; /* the table's ms for this link, 0 none */
	double t = k->width_max != 16 ? 0 : k->gen_max == 4 ? 640 : k->gen_max == 5 ? 320 : 0;
	double pin_ms = CH_WEIGHTS / (b->pin_rate.median * 1e9) * 1e3;
	double page_ms = CH_WEIGHTS / (b->page_rate.median * 1e9) * 1e3;
	double paged_ms = CH_WEIGHTS / (b->full_bytes / b->full.median) * 1e3;

	lab_fact_num(b->L, "load16_pinned_ms", pin_ms, "ms");
	lab_fact_num(b->L, "load16_pageable_ms", page_ms, "ms");
	lab_fact_num(b->L, "load16_paged_ms", paged_ms, "ms");
	if (!b->link.known || t == 0) {
		claim_skip(b->L, "11.5", b->link.known ? SKIP_UNSUPPORTED : SKIP_UNKNOWN_TOPOLOGY,
			   "%s", b->link.known ? "the table has no row for this link" : b->link.seen);
		return;
	}
	claim_stats(b->L, &b->pin_rate);
	claim_stats(b->L, &b->page_rate);
	claim_note(b->L, "16 GB here: pinned %.0f ms (%.1f GB/s), pageable %.0f ms (%.1f GB/s), "
		   "in %llu-byte blocks %.0f ms; the table: %.0f ms pinned on Gen%d x16%s", pin_ms,
		   b->pin_rate.median, page_ms, b->page_rate.median,
		   (unsigned long long)b->k.block_bytes, paged_ms, t, b->link.gen_max,
		   b->link.gen_max == 4 ? ", 1333 ms pageable" : "");
	/* measured time / table time = the table's rate / the measured rate */
	claim_check(b->L, "11.5", lab_est_ratio(lab_est_exact(CH_WEIGHTS / (t / 1e3) / 1e9),
						lab_est_median(&b->pin_rate, 1)));
}

/* This machine's answers to E2, for the notes of 11.2 and 11.3. */
static void machine_figures(struct bench *b)
{
	double one = b->one.median, paged = b->full.median;
	char *rec = b->here.recompute;

	lab_fact_num(b->L, "context_tokens", (double)b->m.context, "tokens");
	lab_fact_num(b->L, "swap_full_paged_s", paged, "s");
	lab_fact_num(b->L, "swap_full_onecopy_s", one, "s");
	lab_fact_num(b->L, "paged_over_onecopy", paged / one, "x");
	snprintf(b->here.swap, sizeof(b->here.swap), "%ld tokens in %ld-token blocks %.3f s, as "
		 "one copy %.3f s (%.1f GB/s): blocks %.2fx one copy; 32K tokens in blocks %.3f s",
		 b->m.context, b->m.block_tokens, paged, one, b->full_bytes / one / 1e9, paged / one,
		 paged / b->m.context * CH_TOKENS);
	if (!b->have_gemm) {
		snprintf(rec, sizeof(b->here.recompute), "no figure (%s)", b->gemm.why);
		return;
	}
	lab_fact_num(b->L, "gemm_tflops", b->tflops, "TFLOP/s");
	if (b->peak_tflops > 0) {
		lab_fact_num(b->L, "gemm_peak_tflops", b->peak_tflops, "TFLOP/s");
		lab_fact_num(b->L, "gemm_peak_fraction", b->tflops / b->peak_tflops, "fraction");
	}
	snprintf(rec, sizeof(b->here.recompute), "%.3f s at %.0f TFLOP/s (cuBLAS %s, %dx%dx%d), "
		 "%.0f %% of a peak of %.0f TFLOP/s: %s",
		 prefill_flop(&b->m, CH_TOKENS) / (b->tflops * 1e12), b->tflops,
		 GEMM_TYPE == LAB_GEMM_BF16 ? "bf16" : "fp32", W_ROWS, RATE_TOKENS, W_COLS,
		 100 * b->tflops / b->peak_tflops, b->peak_tflops, b->peak_how);
}

/*
 * The method: the link and the peak; the GEMMs; the pinned swap space,
 * verified, and the swap-backs; 11.5's paths; then the decisions.
 */
static void gpu_part(struct lab *L, const struct model *m)
{
	struct bench *b = (struct bench *)calloc(1, sizeof(*b));
	int dev = lab_options(L)->device;
	char detail[240];
	const char *why;

	if (!b)
		lab_error(L, "out of memory");
	b->L = L;
	b->m = *m;
	lab_cuda_require(L, 1);
	plan(b);
	if ((why = memory_short(b, detail, sizeof(detail)))) {
		snprintf(b->here.swap, sizeof(b->here.swap), "no figure (%s)", detail);
		memcpy(b->here.recompute, b->here.swap, sizeof(b->here.swap));
		decide_arithmetic(L, m, &b->here);
		claim_skip_rest(L, why, "%s", detail);
		free(b->k.slot);
		return free(b);
	}
	lab_copy_link_probe(L, dev, &b->link);
	b->peak_tflops = lab_gemm_bf16_peak(L, dev, b->peak_how, sizeof(b->peak_how));
	lab_copy_rig_open(L, b->pool_bytes, 0, &b->rig);
	b->have_gemm = lab_gemm_open(L, &b->gemm, W_ROWS, W_COLS, RATE_TOKENS, GEMM_TYPE,
				     b->rig.stream, &b->rig.timer) == 0;
	if (b->have_gemm)
		measure_gemms(b);
	lab_progress(L, "the swap space: %.1f GB of huge pages, faulted in, cudaHostRegister'd",
		     b->pool_bytes / 1e9); /* README, the swap space */
	double t0 = lab_now();
	if (lab_host_alloc(L, LAB_HOST_REGISTERED, b->pool_bytes, 2 * MiB, BUF_HUGE | BUF_TOUCH,
			   &b->kv) < 0)
		lab_error(L, "%s", b->kv.why_not);
	lab_fact_num(L, "pinned_alloc_s", lab_now() - t0, "s");
	lab_fact_num(L, "pinned_register_s", b->kv.pin_s, "s");
	lab_host_alloc(L, LAB_HOST_PAGEABLE, b->rate_bytes, 0, BUF_TOUCH, &b->page);
	measure_swaps(b);
	measure_paths(b);
	machine_figures(b);
	decide_arithmetic(L, m, &b->here);
	b->have_gemm ? decide_crossover(b) : claim_skip(L, "11.4", SKIP_NO_LIBRARY, "%s", b->gemm.why);
	decide_paths(b);
	lab_host_free(L, &b->kv);
	lab_host_free(L, &b->page);
	lab_copy_rig_close(&b->rig);
	free(b->k.slot);
	free(b);
}
#endif /* DMALAB_HAVE_CUDA */

static void run(struct lab *L)
{
	struct model m = M; /* check_opts has checked it */
	struct machine_notes none;
	char detail[200] = "built without nvcc";
	const char *why = SKIP_NOT_BUILT_NO_NVCC;

	lab_fact_num(L, "params", m.params, "");
	chapter_series(L, &m);
#if DMALAB_HAVE_CUDA
	why = lab_cuda_unavailable(1, detail, sizeof(detail));
	if (!why) {
		gpu_part(L, &m);
		return;
	}
#endif
	snprintf(none.swap, sizeof(none.swap), "no figure (%s)", detail);
	memcpy(none.recompute, none.swap, sizeof(none.swap));
	decide_arithmetic(L, &m, &none);
	claim_skip_rest(L, why, "%s", detail);
}

LAB_MAIN(spec, run)
