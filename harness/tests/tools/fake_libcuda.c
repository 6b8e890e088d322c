/*
 * fake_libcuda.c - a made-up libcuda.so.1 for test-preflight.sh, loaded
 * through LD_LIBRARY_PATH, so that a lab finds a driver that does not start
 * (it exports none of the entry points the CUDA runtime looks for) on a
 * machine without a GPU, or one that hangs.
 *
 * Environment:
 *   FAKE_CUDA_HANG_IF=WORD  a process whose command line has the word WORD
 *                           sleeps when it loads this library: a hung driver
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* 1 when this process's command line has the word `word`. */
static int has_word(const char *word)
{
	char cmd[4096];
	FILE *f = fopen("/proc/self/cmdline", "r");
	size_t n, i;

	if (!f)
		return 0;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	cmd[n] = '\0';
	for (i = 0; i < n; i += strlen(cmd + i) + 1)
		if (!strcmp(cmd + i, word))
			return 1;
	return 0;
}

__attribute__((constructor)) static void fake_load(void)
{
	const char *word = getenv("FAKE_CUDA_HANG_IF");

	if (word && *word && has_word(word))
		for (;;)
			pause();
}
