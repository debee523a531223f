/*
 * setup.h: the setup wizard of the admin API (ctxd-web(8), ADMIN API): its steps, the
 * settings each saves, what a saved step must leave configured, and their state (the
 * settings setup.*: pending, done or skipped).
 */
#ifndef SETUP_H
#define SETUP_H

#include <stddef.h>

#include <json.h>

#include "store/settings.h"

struct setup_step;
struct db;

/* {complete, steps: [step, ...]}: every step as setup_step_json shows it. */
json_object *setup_json(struct db *, const char *datadir);
/*
 * The step named name ("ai-provider", "embedding", "git-tokens", "who-can-read"), or
 * NULL.
 */
const struct setup_step *setup_step(const char *name);
/* {step, title, state, settings} of one step. */
json_object *setup_step_json(struct db *, const char *datadir,
	    const struct setup_step *);
/*
 * Saves a step in one transaction: writes the settings of body (only the step's own;
 * settings_apply_json), checks what the step must leave configured and marks it done; with
 * body NULL marks it skipped. BAD or DBERR (with err) leave everything as it was.
 */
enum settings_apply_result setup_step_save(struct db *, const char *datadir,
	    const struct setup_step *, json_object *body, char *err, size_t errsz);

#endif
