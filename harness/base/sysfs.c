/* sysfs.c - small /sys and /proc/sys files read whole (sysfs.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sysfs.h"

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	ssize_t n;
	char extra;
	int fd;

	if (!path || !buf || len == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	/* A file longer than the buffer would be silently cut: refuse it. */
	if (n >= 0 && (size_t)n == len - 1 && read(fd, &extra, 1) == 1) {
		close(fd);
		errno = ERANGE;
		return -1;
	}
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

char *sysfs_choice(char *text)
{
	char *open_br = strchr(text, '['), *close_br;

	close_br = open_br ? strchr(open_br, ']') : NULL;
	if (!close_br)
		return NULL;
	*close_br = '\0';
	return open_br + 1;
}
