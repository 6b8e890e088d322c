/*
 * storage.c - a storage lab's test file, its removal on every path, the
 * page cache emptied of it, and what it lies on (storage.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "buffer.h"
#include "cleanup.h"
#include "lab.h"
#include "procfs.h"
#include "storage.h"

/* ------------------------------------------------------------------------ */
/* What a killed run left                                                    */

/* "PREFIX-PID.SUFFIX" with SUFFIX of [a-z.]: the pid, else 0. */
static long stale_pid(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p = name + n + 1, *s;
	char *end;
	long pid;

	if (strncmp(name, prefix, n) || name[n] != '-' || *p < '0' || *p > '9')
		return 0;
	pid = strtol(p, &end, 10);
	if (*end != '.' || !end[1] || pid <= 0)
		return 0;
	for (s = end + 1; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || *s == '.'))
			return 0;
	return pid;
}

int storage_sweep_stale(const char *dir, const char *prefix, storage_stale_fn fn, void *ctx)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];
	int n = 0;
	long pid;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		if ((pid = stale_pid(e->d_name, prefix)) && kill((pid_t)pid, 0) < 0 &&
		    errno == ESRCH &&
		    snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < (int)sizeof(path) &&
		    unlink(path) == 0) {
			n++;
			if (fn)
				fn(path, pid, ctx);
		}
	closedir(d);
	return n;
}

/* ------------------------------------------------------------------------ */
/* The test file                                                             */

const char *storage_dir_default(const char *json_path, char *buf, size_t len)
{
	const char *slash = json_path ? strrchr(json_path, '/') : NULL;

	if (!json_path)
		snprintf(buf, len, "results");
	else if (!slash)
		snprintf(buf, len, ".");
	else
		snprintf(buf, len, "%.*s", (int)(slash - json_path + (slash == json_path)),
			 json_path);
	return buf;
}

/* A file can be made in dir (a folder root may write to, like /proc, may
 * still refuse one); else -1 with errno. */
static int file_can_be_made(const char *dir)
{
	char probe[PATH_MAX];
	int fd;

	if (snprintf(probe, sizeof(probe), "%s/.dmalab-probe-XXXXXX", dir) >= (int)sizeof(probe))
		return errno = ENAMETOOLONG, -1;
	if ((fd = mkstemp(probe)) < 0)
		return -1;
	close(fd);
	unlink(probe);
	return 0;
}

int storage_dir_check(const char *dir, int missing_ok, char *why, size_t len)
{
	struct stat st;
	int e;

	why[0] = '\0';
	if (stat(dir, &st) < 0) {
		e = errno;
		if (e == ENOENT && missing_ok)
			return 0;
		snprintf(why, len, "%s", strerror(e));
		return errno = e, -1;
	}
	if (!S_ISDIR(st.st_mode) || access(dir, W_OK | X_OK) < 0 || file_can_be_made(dir) < 0) {
		e = S_ISDIR(st.st_mode) ? errno : ENOTDIR;
		snprintf(why, len, "%s", strerror(e));
		return errno = e, -1;
	}
	return 0;
}

int storage_dir_room(const char *dir, uint64_t need, char *why, size_t len)
{
	char parent[PATH_MAX], a[32], b[32];
	struct statvfs v;
	uint64_t avail;

	why[0] = '\0';
	/* a default folder the lab has yet to make lies on its parent's filesystem */
	snprintf(parent, sizeof(parent), "%s", dir);
	if (statvfs(dir, &v) < 0 && statvfs(dirname(parent), &v) < 0)
		return 0;
	avail = (uint64_t)v.f_bavail * v.f_frsize;
	if (avail >= need)
		return 0;
	snprintf(why, len, "%s free in %s, %s needed", lab_fmt_size(avail, a, sizeof(a)), dir,
		 lab_fmt_size(need, b, sizeof(b)));
	return errno = ENOSPC, -1;
}

int storage_io_all(int fd, void *p, uint64_t len, uint64_t off, int write)
{
	ssize_t n;

	while (len) {
		n = write ? pwrite(fd, p, (size_t)len, (off_t)off) :
			    pread(fd, p, (size_t)len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = write ? ENOSPC : EIO;
			return -1;
		}
		p = (char *)p + n;
		len -= (uint64_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Fills and syncs the open file: 0, or -1 with errno and the step. */
static int fill(struct storage_file *f, uint64_t chunk, uint32_t seed, uint32_t *w,
		const char **what)
{
	uint64_t off, j;

	for (off = 0; off < f->bytes; off += chunk) {
		for (j = 0; j < chunk / 4; j++)
			w[j] = buf_pattern_word(seed, off / 4 + j);
		if (storage_io_all(f->fd, w, chunk, off, 1) < 0)
			return *what = "writing", -1;
	}
	if (fdatasync(f->fd) < 0)
		return *what = "fdatasync", -1;
	return 0;
}

/* fill, with a write past RLIMIT_FSIZE an error (EFBIG), not death by SIGXFSZ. */
static int fill_no_sigxfsz(struct storage_file *f, uint64_t chunk, uint32_t seed, uint32_t *w,
			   const char **what)
{
	static const int xfsz = SIGXFSZ;
	int rc, e;

	cleanup_let_pass(&xfsz, 1);
	rc = fill(f, chunk, seed, w, what);
	e = errno;
	cleanup_let_pass(NULL, 0);
	errno = e;
	return rc;
}

int storage_file_create(struct storage_file *f, const char *dir, const char *prefix,
			uint64_t bytes, uint64_t chunk, uint32_t seed, void *scratch,
			const char **what)
{
	const char *step = "creating";
	double t0 = lab_now();
	int e;

	memset(f, 0, sizeof(*f));
	f->fd = f->fd_direct = -1;
	f->bytes = bytes;
	f->page = sysconf(_SC_PAGESIZE);
	if (!what)
		what = &step;
	*what = step;
	if (!bytes || !chunk || chunk % 4 || bytes % chunk)
		return errno = EINVAL, -1;
	if (snprintf(f->path, sizeof(f->path), "%s/%s-%ld.dat", dir, prefix, (long)getpid()) >=
	    (int)sizeof(f->path))
		return errno = ENAMETOOLONG, -1;
	if (tempfile_add(f->path) < 0)
		return -1;
	f->fd = open(f->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (f->fd < 0) { /* EEXIST: not ours to remove */
		e = errno;
		tempfile_forget(f->path);
		f->path[0] = '\0';
		return errno = e, -1;
	}
	if (fill_no_sigxfsz(f, chunk, seed, (uint32_t *)scratch, what) < 0) {
		e = errno;
		storage_file_close(f);
		return errno = e, -1;
	}
	f->write_s = lab_now() - t0;
	f->fd_direct = open(f->path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	f->direct_errno = f->fd_direct < 0 ? errno : 0;
	f->map = (unsigned char *)mmap(NULL, (size_t)bytes, PROT_READ, MAP_SHARED, f->fd, 0);
	if (f->map == MAP_FAILED)
		f->map = NULL;
	f->vec = (unsigned char *)malloc((size_t)(bytes / (uint64_t)f->page + 1));
	return 0;
}

static void note_stale(const char *path, long pid, void *ctx)
{
	lab_note((struct lab *)ctx, MSG("10.say-1",
		"removed %s: the run that made it (pid %ld) is gone"), path,
		 pid);
}

void storage_file_make(struct lab *L, struct storage_file *f, struct storage_where *w,
		       const char *dir, int make_dir, const char *prefix, uint64_t bytes,
		       uint64_t chunk, uint32_t seed, void *scratch)
{
	/* name the folder as the user knows it: a --dir typed, or the default */
	const char *what = "creating", *named = make_dir ? "the test folder" : "--dir";
	char size[32];
	struct stat st;

	if (make_dir && mkdir(dir, 0777) < 0 && errno != EEXIST)
		lab_error_errno(L, "%s '%s': making it", named, dir);
	storage_sweep_stale(dir, prefix, note_stale, L);
	if (storage_file_create(f, dir, prefix, bytes, chunk, seed, scratch, &what) < 0) {
		if (errno == ENOSPC || errno == EDQUOT) /* others' files took the room meanwhile */
			lab_skip(L, SKIP_NOT_ENOUGH_SPACE, "%s filled up while %s the %s "
				 "test file: %s", dir, what,
				 lab_fmt_size(bytes, size, sizeof(size)), strerror(errno));
		lab_error_errno(L, "%s '%s': %s the test file", named, dir, what);
	}
	lab_fact_num(L, "file_write_gbs", (double)bytes / f->write_s / 1e9, "GB/s");
	if (fstat(f->fd, &st) < 0)
		lab_error_errno(L, "fstat of %s", f->path);
	storage_where_read(NULL, st.st_dev, w);
	storage_where_report(L, f->path, w);
}

void storage_file_close(struct storage_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->fd_direct >= 0)
		close(f->fd_direct);
	if (f->map)
		munmap(f->map, (size_t)f->bytes);
	free(f->vec);
	if (f->path[0])
		tempfile_remove(f->path);
	f->fd = f->fd_direct = -1;
	f->map = f->vec = NULL;
	f->path[0] = '\0';
}

long storage_cached_pages(const struct storage_file *f)
{
	uint64_t i, pages = (f->bytes + (uint64_t)f->page - 1) / (uint64_t)f->page;
	long n = 0;

	if (!f->map || !f->vec || mincore(f->map, (size_t)f->bytes, f->vec) < 0)
		return -1;
	for (i = 0; i < pages; i++)
		n += f->vec[i] & 1;
	return n;
}

long storage_evict(struct storage_file *f)
{
	if (f->fd < 0 || posix_fadvise(f->fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		return -1;
	return storage_cached_pages(f);
}

/* ------------------------------------------------------------------------ */
/* What the file lies on                                                     */

static void mount_of(const char *root, dev_t dev, struct storage_where *w)
{
	char path[PATH_MAX], line[2048], fs[64], src[256];
	const char *sep;
	unsigned int ma, mi;
	FILE *m;

	snprintf(path, sizeof(path), "%s/proc/self/mountinfo", root);
	if (!(m = fopen(path, "r")))
		return;
	while (fgets(line, sizeof(line), m))
		if (sscanf(line, "%*d %*d %u:%u", &ma, &mi) == 2 && ma == major(dev) &&
		    mi == minor(dev) && (sep = strstr(line, " - ")) &&
		    sscanf(sep + 3, "%63s %255s", fs, src) == 2) {
			snprintf(w->fs, sizeof(w->fs), "%s", fs);
			snprintf(w->source, sizeof(w->source), "%s", src);
			break;
		}
	fclose(m);
}

/* A queue value of the disk at dir ("" prefix for a disk, "/.." for a partition). */
static long queue_value(const char *dir, const char *name)
{
	char path[PATH_MAX + 64];
	long v = -1;

	snprintf(path, sizeof(path), "%s/queue/%s", dir, name);
	return sysfs_read_long(path, &v) == 0 ? v : -1;
}

int storage_where_read(const char *root, dev_t dev, struct storage_where *w)
{
	char dir[PATH_MAX], disk[PATH_MAX + 8], link[PATH_MAX];
	struct stat st;
	const char *name;
	ssize_t n;

	if (!w)
		return errno = EINVAL, -1;
	root = root ? root : "";
	memset(w, 0, sizeof(*w));
	strcpy(w->fs, "?");
	strcpy(w->source, "?");
	w->rotational = w->read_ahead_kb = w->max_sectors_kb = w->max_segments = -1;
	mount_of(root, dev, w);
	snprintf(dir, sizeof(dir), "%s/sys/dev/block/%u:%u", root, major(dev), minor(dev));
	if ((n = readlink(dir, link, sizeof(link) - 1)) <= 0)
		return 0; /* no block device */
	link[n] = '\0';
	name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(w->device, sizeof(w->device), "%.63s", name);
	snprintf(w->stat_path, sizeof(w->stat_path), "%.4000s/stat", dir);
	if (stat(w->stat_path, &st) < 0)
		w->stat_path[0] = '\0';
	snprintf(disk, sizeof(disk), "%s/queue", dir);
	snprintf(disk, sizeof(disk), "%s%s", dir, access(disk, F_OK) == 0 ? "" : "/..");
	w->rotational = queue_value(disk, "rotational");
	w->read_ahead_kb = queue_value(disk, "read_ahead_kb");
	w->max_sectors_kb = queue_value(disk, "max_sectors_kb");
	w->max_segments = queue_value(disk, "max_segments");
	return 0;
}

/* A queue value as the narration says it: the number, or "unknown". */
static const char *queue_word(long v, char *buf, size_t len)
{
	if (v < 0)
		return "unknown";
	snprintf(buf, len, "%ld", v);
	return buf;
}

void storage_where_report(struct lab *L, const char *path, const struct storage_where *w)
{
	const char *dev = w->device[0] ? w->device : "none";
	char rot[24], ra[24], sect[24], segs[24];

	lab_fact_str(L, "fs_type", w->fs);
	lab_fact_str(L, "block_device", dev);
	lab_fact_num(L, "block_rotational", (double)w->rotational, "");
	lab_fact_num(L, "block_read_ahead_kb", (double)w->read_ahead_kb, "KiB");
	lab_fact_num(L, "block_max_sectors_kb", (double)w->max_sectors_kb, "KiB");
	lab_fact_num(L, "block_max_segments", (double)w->max_segments, "");
	if (!w->device[0]) { /* tmpfs and the like: no queue to read */
		lab_note(L, MSG("10.say-2",
			"%s: %s from %s, no block device (so no queue limits)"), path, w->fs,
			 w->source);
		return;
	}
	lab_note(L, MSG("10.say-3",
		"%s: %s from %s, block device %s (rotational %s, read-ahead %s KiB, requests of "
		"at most %s KiB in %s pieces)"), path, w->fs, w->source, dev,
		 queue_word(w->rotational, rot, sizeof(rot)),
		 queue_word(w->read_ahead_kb, ra, sizeof(ra)),
		 queue_word(w->max_sectors_kb, sect, sizeof(sect)),
		 queue_word(w->max_segments, segs, sizeof(segs)));
}

int storage_counters_read(const char *stat_path, struct storage_counters *c)
{
	unsigned long long v[10];
	FILE *f;
	int n;

	if (!stat_path || !stat_path[0])
		return errno = ENOENT, -1;
	if (!(f = fopen(stat_path, "r")))
		return -1;
	n = fscanf(f, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
	fclose(f);
	if (n != 10)
		return errno = EINVAL, -1;
	c->reads = v[0];
	c->sectors = v[2];
	c->read_ms = v[3];
	c->busy_ms = v[9];
	c->at = lab_now();
	return 0;
}

void storage_counters_add(struct storage_counters *sum, const struct storage_counters *a,
			  const struct storage_counters *b)
{
	sum->reads += b->reads - a->reads;
	sum->sectors += b->sectors - a->sectors;
	sum->read_ms += b->read_ms - a->read_ms;
	sum->busy_ms += b->busy_ms - a->busy_ms;
	sum->at += b->at - a->at;
}

struct storage_load storage_load_of(const struct storage_counters *sum)
{
	struct storage_load l = { -1, -1, -1 };

	if (sum->reads)
		l.req_kib = (double)sum->sectors * 512.0 / 1024.0 / (double)sum->reads;
	if (sum->at > 0) {
		l.depth = (double)sum->read_ms / 1e3 / sum->at;
		l.busy = (double)sum->busy_ms / 1e3 / sum->at;
	}
	return l;
}
