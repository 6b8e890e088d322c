/*
 * restore.h - the machine-wide settings a lab changed, put back by the
 * runner after the lab ended, whatever ended it, and the files it announced
 * and left, removed (restore.c).
 */
#ifndef DMALAB_RUNNER_RESTORE_H
#define DMALAB_RUNNER_RESTORE_H

#include <stdio.h>

#include "runner.h"

/*
 * Before the lab starts: its journal is <results>/lab-NN.restore, named to
 * it in DMALAB_RESTORE_FILE (sysctl_change.h), and its list of files
 * <results>/lab-NN.tempfiles, in DMALAB_TEMP_LIST (cleanup.h); what a run
 * that died left in either is put back, or removed, first.
 */
void restore_before_lab(struct run_state *rs, struct lab_entry *lab);
/*
 * After the lab ended (it was reaped, with its whole group): every setting
 * its journal records and it did not put back itself is put back, every
 * file it listed and did not remove is removed, and each one is said on
 * stderr and in log (may be NULL).
 */
void restore_after_lab(struct run_state *rs, struct lab_entry *lab, FILE *log);

#endif
