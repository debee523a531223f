/* trial.h: the once-per-instance record of a started evaluation. */
#ifndef STORE_TRIAL_H
#define STORE_TRIAL_H

#include <stddef.h>

struct db;

/*
 * Records that the trial started on date ("YYYY-MM-DD"). 1 when this call recorded it, 0
 * when a trial was already recorded (its date copied to prev), -1 on a database error.
 */
int	 store_trial_claim(struct db *, const char *date, char *prev, size_t prevsz);

#endif /* STORE_TRIAL_H */
