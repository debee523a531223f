/* setup.c: the setup wizard's steps and their state (see setup.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "admin/setup.h"
#include "base/log.h"
#include "store/db.h"
#include "store/settings.h"

static const char *const setup_ai[] = { "ai.llm.provider", "ai.llm.api_key",
	"ai.llm.model", "ai.llm.region", "ai.llm.base_url", NULL };
static const char *const setup_embed[] = { "ai.embed.provider", "ai.embed.api_key",
	"ai.embed.model", "ai.embed.base_url", "ai.embed.region", NULL };
static const char *const setup_git[] = { "git.github.token", "git.github.host",
	"git.gitlab.token", "git.gitlab.host", NULL };
static const char *const setup_read[] = { "perm.require_mcp_auth", NULL };

struct setup_step {
	const char		*name;		/* path segment */
	const char		*title;
	const char		*state;		/* setting holding pending|done|skipped */
	const char *const	*settings;	/* what the step saves */
};

static const struct setup_step setup_steps[] = {
	{ "ai-provider", "AI provider", "setup.ai_provider", setup_ai },
	{ "embedding", "Embedding provider", "setup.embedding", setup_embed },
	{ "git-tokens", "Git tokens", "setup.git_tokens", setup_git },
	{ "who-can-read", "Who can read", "setup.who_can_read", setup_read },
};
#define SETUP_NSTEPS	(sizeof(setup_steps) / sizeof(setup_steps[0]))

const struct setup_step *
setup_step(const char *name)
{
	size_t	 i;

	for (i = 0; i < SETUP_NSTEPS; i++)
		if (strcmp(setup_steps[i].name, name) == 0)
			return &setup_steps[i];
	return NULL;
}

/* 1 when a setting has a non-empty value (stored or default). */
static int
setup_has_value(struct db *db, const char *datadir, const char *name)
{
	char	*v = settings_get(db, datadir, name);
	int	 has = v != NULL && *v != '\0';

	if (v != NULL)
		explicit_bzero(v, strlen(v));
	free(v);
	return has;
}

/* What a saved step must leave configured; 0, or -1 with err. */
static int
setup_step_check(struct db *db, const char *datadir, const struct setup_step *s,
    json_object *body, char *err, size_t errsz)
{
	json_object	*v;
	char		*p;
	int		 same;

	if (s->settings == setup_ai && !setup_has_value(db, datadir, "ai.llm.provider")) {
		snprintf(err, errsz, "ai.llm.provider must be set to save this step "
		    "(or skip it)");
		return -1;
	}
	if (s->settings == setup_embed) {
		p = settings_get(db, datadir, "ai.embed.provider");
		same = p == NULL || strcmp(p, "same") == 0;
		free(p);
		if (same && !setup_has_value(db, datadir, "ai.llm.provider")) {
			snprintf(err, errsz, "ai.embed.provider 'same' needs an AI "
			    "provider (step ai-provider); choose one or skip this "
			    "step");
			return -1;
		}
	}
	if (s->settings == setup_git && !settings_is_set(db, "git.github.token") &&
	    !settings_is_set(db, "git.gitlab.token")) {
		snprintf(err, errsz, "set git.github.token or git.gitlab.token to save "
		    "this step (or skip it)");
		return -1;
	}
	/* Who can read is a decision: the body says it, true or false (a reset is none). */
	if (s->settings == setup_read &&
	    (!json_object_object_get_ex(body, "perm.require_mcp_auth", &v) ||
	    !json_object_is_type(v, json_type_boolean))) {
		snprintf(err, errsz, "perm.require_mcp_auth must be true (an API key is "
		    "needed to read) or false (anyone who reaches the server reads) to save "
		    "this step (or skip it)");
		return -1;
	}
	return 0;
}

json_object *
setup_step_json(struct db *db, const char *datadir, const struct setup_step *s)
{
	json_object	*o = json_object_new_object();
	char		*state = settings_get(db, datadir, s->state);

	json_object_object_add(o, "step", json_object_new_string(s->name));
	json_object_object_add(o, "title", json_object_new_string(s->title));
	json_object_object_add(o, "state", json_object_new_string(state != NULL ?
	    state : "pending"));
	json_object_object_add(o, "settings", settings_json(db, datadir, s->settings));
	free(state);
	return o;
}

json_object *
setup_json(struct db *db, const char *datadir)
{
	json_object	*o = json_object_new_object(), *a = json_object_new_array();
	size_t		 i;
	int		 complete = 1;
	char		*state;

	for (i = 0; i < SETUP_NSTEPS; i++) {
		state = settings_get(db, datadir, setup_steps[i].state);
		if (state == NULL || strcmp(state, "pending") == 0)
			complete = 0;
		free(state);
		json_object_array_add(a, setup_step_json(db, datadir, &setup_steps[i]));
	}
	json_object_object_add(o, "complete", json_object_new_boolean(complete));
	json_object_object_add(o, "steps", a);
	return o;
}

enum settings_apply_result
setup_step_save(struct db *db, const char *datadir, const struct setup_step *s,
    json_object *body, char *err, size_t errsz)
{
	enum settings_apply_result rc;

	if (db_begin(db) == -1)
		goto dberr;
	if (body != NULL) {
		if ((rc = settings_apply_json(db, datadir, body, s->settings, err,
		    errsz)) != SETTINGS_APPLY_OK) {
			db_rollback(db);
			return rc;
		}
		if (setup_step_check(db, datadir, s, body, err, errsz) == -1) {
			db_rollback(db);
			return SETTINGS_APPLY_BAD;
		}
	}
	if (settings_set(db, datadir, s->state, body != NULL ? "done" : "skipped", err,
	    errsz) != 0 || db_commit(db) == -1) {
		db_rollback(db);
		goto dberr;
	}
	return SETTINGS_APPLY_OK;
dberr:
	log_err("%s: %s", __func__, db_errmsg(db));
	snprintf(err, errsz, "database error");
	return SETTINGS_APPLY_DBERR;
}
