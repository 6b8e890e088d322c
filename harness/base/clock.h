/*
 * clock.h - the one clock the kit times with (CLOCK_MONOTONIC), its step,
 * and a sink that keeps measured work alive.
 */
#ifndef DMALAB_CLOCK_H
#define DMALAB_CLOCK_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CLOCK_MONOTONIC in seconds. */
double lab_now(void);
/* Smallest observable step of lab_now(), measured once and cached (s). */
double lab_clock_resolution(void);
/* Keeps `v` alive so the compiler cannot delete the work that made it. */
void lab_sink(uint64_t v);

#ifdef __cplusplus
}
#endif
#endif
