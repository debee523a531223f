/*
 * account.c: the account API of ctxd-web (ctxd-web(8), ACCOUNT API): sign-in sessions,
 * password change, personal API keys and, for admins, users. The route table (fcgi/web.c)
 * has authorized the caller, r->who.
 *
 *   POST/GET/DELETE /api/session       sign in / who am I / sign out
 *   POST /api/password                 change one's own password
 *   GET/POST /api/keys, DELETE /api/keys/{id}
 *   GET/POST /api/users, GET/PATCH/DELETE /api/users/{name}   (admins)
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "auth/accounts.h"
#include "auth/apikey.h"
#include "auth/session.h"
#include "auth/user.h"
#include "base/log.h"
#include "base/util.h"
#include "base/validate.h"
#include "http/access.h"
#include "http/http.h"
#include "web.h"

#define KEY_NAME_MAX	100

static json_object *
account_user_json(const struct user *u)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(u->name));
	json_object_object_add(o, "role", json_object_new_string(u->admin ? "admin" :
	    "member"));
	json_object_object_add(o, "disabled", json_object_new_boolean(u->disabled));
	json_object_object_add(o, "mustChangePassword",
	    json_object_new_boolean(u->must_change));
	json_object_object_add(o, "createdAt", json_object_new_string(u->created));
	json_object_object_add(o, "updatedAt", json_object_new_string(u->updated));
	return o;
}

/* The Set-Cookie header line of a session token (NULL token: one that clears it). */
static void
account_cookie(struct http_req *r, const char *token, char *out, size_t outsz)
{
	const char	*proto = http_header(r, "HTTP_X_FORWARDED_PROTO");
	int		 secure = r->https || (proto != NULL &&
			    strcasecmp(proto, "https") == 0);

	snprintf(out, outsz, "Set-Cookie: %s=%s; Path=/; HttpOnly; SameSite=Strict; "
	    "Max-Age=%d%s\r\n", SESSION_COOKIE, token != NULL ? token : "",
	    token != NULL ? SESSION_MAX_S : 0, secure ? "; Secure" : "");
}

/* {"user", "admin", "via", "csrfToken", "mustChangePassword"} of a principal. */
static json_object *
account_me_json(const struct access_principal *p)
{
	json_object	*o = json_object_new_object();
	char		 csrf[SESSION_CSRF_LEN + 1];

	json_object_object_add(o, "signedIn", json_object_new_boolean(1));
	json_object_object_add(o, "user", p->user.id != 0 ?
	    account_user_json(&p->user) : NULL);
	json_object_object_add(o, "admin", json_object_new_boolean(p->admin));
	json_object_object_add(o, "via", json_object_new_string(p->via == ACCESS_SESSION ?
	    "session" : "key"));
	json_object_object_add(o, "mustChangePassword",
	    json_object_new_boolean(p->user.must_change));
	if (p->via == ACCESS_SESSION) {
		session_csrf(p->token, csrf);
		json_object_object_add(o, "csrfToken", json_object_new_string(csrf));
		json_object_object_add(o, "idleTimeoutSeconds",
		    json_object_new_int(SESSION_IDLE_S));
		explicit_bzero(csrf, sizeof(csrf));
	}
	return o;
}

/* The caller's address for the sign-in throttle and the log. */
static const char *
account_addr(struct http_req *r)
{
	const char	*addr = http_header(r, "REMOTE_ADDR");

	return addr != NULL && *addr != '\0' ? addr : "unknown";
}

static void
account_free_secret(char *s)
{
	if (s != NULL) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

static const struct validate_field account_login_fields[] = {
	{ .name = "username", .type = VALIDATE_STRING, .required = 1,
	    .max = USER_NAME_MAX },
	{ .name = "password", .type = VALIDATE_STRING, .required = 1,
	    .max = USER_PASSWORD_MAX },
	{ .name = NULL }
};
static const struct validate_table account_login_body = {
	.fields = account_login_fields,
	.what = "field"
};

/*
 * Checks name and password (throttled per user and address): 0 with the user in *u, or
 * answered (401, 403, 429, 500) and -1. *weaker when the stored hash should be renewed.
 */
static int
account_check_login(struct http_req *r, const char *name, const char *pw,
    struct user *u, int *weaker)
{
	char		*hash = NULL, hdr[96];
	long		 wait;
	int		 found, ok = 0;

	if ((wait = session_throttle_wait(r->db, name, account_addr(r))) == -1) {
		http_error(r, 500, "the sign-in could not be checked");
		return -1;
	}
	if (wait > 0) {
		snprintf(hdr, sizeof(hdr), "Retry-After: %ld\r\n", wait);
		http_error_hdr(r, 429, hdr, "too many failed sign-ins for this user "
		    "or from this address; try again in %ld seconds", wait);
		return -1;
	}
	if ((found = user_valid_name(name) ? user_by_name(r->db, name, u, &hash) : 1) ==
	    -1) {
		http_error(r, 500, "the sign-in could not be checked");
		return -1;
	}
	if (found == 0)
		ok = user_password_verify(hash, pw, weaker) == 1;
	else
		user_password_dummy(pw);
	account_free_secret(hash);
	if (!ok) {
		log_warn("failed sign-in as %.64s from %s", name, account_addr(r));
		if (session_throttle_fail(r->db, name, account_addr(r)) == -1)
			log_err("%s: the failure could not be counted", __func__);
		http_error(r, 401, "wrong user name or password");
		return -1;
	}
	if (u->disabled) {
		http_error(r, 403, "the account %s is disabled", u->name);
		return -1;
	}
	return 0;
}

/* POST /api/session: sign in with a user name and password. */
void
account_login(struct http_req *r, void *arg)
{
	struct access_principal p;
	struct user	 u;
	json_object	*body;
	const char	*name, *pw;
	char		*token = NULL, hdr[256];
	long long	 sid;
	int		 weaker = 0;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &account_login_body)) == NULL)
		return;
	name = validate_str(body, "username");
	pw = validate_str(body, "password");
	if (account_check_login(r, name, pw, &u, &weaker) == -1)
		goto out;
	/* A hash made with weaker parameters is replaced while the password is at hand. */
	if ((token = session_sign_in(r->db, &u, weaker ? pw : NULL, account_addr(r), &sid)) == NULL) {
		web_util_dberr(r, __func__, "the change could not be stored");
		goto out;
	}
	log_info("%s signed in from %s", u.name, account_addr(r));
	memset(&p, 0, sizeof(p));
	p.via = ACCESS_SESSION;
	p.session_id = sid;
	p.user = u;
	p.admin = u.admin;
	snprintf(p.token, sizeof(p.token), "%s", token);
	account_cookie(r, token, hdr, sizeof(hdr));
	web_util_send(r, 200, hdr, account_me_json(&p));
	explicit_bzero(hdr, sizeof(hdr));
	explicit_bzero(&p, sizeof(p));
out:
	account_free_secret(token);
	json_object_put(body);
}

/* GET /api/session: who am I ({"signedIn": false} for a caller with no credential). */
void
account_session_get(struct http_req *r, void *arg)
{
	json_object	*o;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	/* Nobody signed in (no key, no cookie): a plain answer, not a refusal, so that the
	 * web UI's first page makes no request the browser logs as an error. */
	if (r->who.via == ACCESS_ANONYMOUS) {
		o = json_object_new_object();
		json_object_object_add(o, "signedIn", json_object_new_boolean(0));
		web_util_send(r, 200, NULL, o);
		return;
	}
	web_util_send(r, 200, NULL, account_me_json(&r->who));
}

/* DELETE /api/session: sign out (a session, not a key). */
void
account_logout(struct http_req *r, void *arg)
{
	char		 hdr[256];

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if (r->who.via != ACCESS_SESSION) {
		http_error(r, 400, "signing out ends a session; this request carries an "
		    "API key (revoke it with DELETE /api/keys/ID)");
		return;
	}
	if (session_end(r->db, r->who.session_id) == -1) {
		web_util_dberr(r, __func__, "the change could not be stored");
		return;
	}
	account_cookie(r, NULL, hdr, sizeof(hdr));
	web_util_send(r, 200, hdr, json_object_new_object());
}

static const struct validate_field account_password_fields[] = {
	{ .name = "currentPassword", .type = VALIDATE_STRING, .required = 1,
	    .max = USER_PASSWORD_MAX },
	{ .name = "newPassword", .type = VALIDATE_STRING, .required = 1,
	    .max = USER_PASSWORD_MAX },
	{ .name = NULL }
};
static const struct validate_table account_password_body = {
	.fields = account_password_fields,
	.what = "field"
};

/*
 * Checks the current password cur of user name (throttled as a sign-in) and the new one
 * nw: 0 with the user in *u, or answered (400, 403, 429, 500) and -1.
 */
static int
account_check_password(struct http_req *r, const char *name, const char *cur,
    const char *nw, struct user *u)
{
	char		*hash = NULL, err[256], hdr[96];
	long		 wait;
	int		 rc = -1;

	/* The current password is guessed no faster here than at sign-in. */
	if ((wait = session_throttle_wait(r->db, name, account_addr(r))) > 0) {
		snprintf(hdr, sizeof(hdr), "Retry-After: %ld\r\n", wait);
		http_error_hdr(r, 429, hdr, "too many wrong passwords; try again in %ld "
		    "seconds", wait);
		return -1;
	}
	if (user_by_name(r->db, name, u, &hash) != 0 || wait == -1)
		http_error(r, 500, "the user could not be read");
	else if (user_password_verify(hash, cur, NULL) != 1) {
		(void)session_throttle_fail(r->db, name, account_addr(r));
		http_error(r, 403, "the current password is wrong");
	} else if (user_valid_password(nw, u->name, err, sizeof(err)) == -1)
		http_error(r, 400, "%s", err);
	else if (strcmp(nw, cur) == 0)
		http_error(r, 400, "the new password must differ from the current one");
	else
		rc = 0;
	account_free_secret(hash);
	return rc;
}

/* POST /api/password: change one's own password; ends one's other sessions. */
void
account_password(struct http_req *r, void *arg)
{
	const struct access_principal *p = &r->who;
	struct user	 u;
	json_object	*body, *o;
	const char	*cur, *nw;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if (p->user.id == 0) {
		http_error(r, 403, "an operator key has no user and no password");
		return;
	}
	if ((body = validate_body(r, &account_password_body)) == NULL)
		return;
	cur = validate_str(body, "currentPassword");
	nw = validate_str(body, "newPassword");
	if (account_check_password(r, p->user.name, cur, nw, &u) == -1)
		goto out;
	if (accounts_change_password(r->db, &u, nw, 0, p->via == ACCESS_SESSION ?
	    p->session_id : 0) == -1) {
		web_util_dberr(r, __func__, "the change could not be stored");
		goto out;
	}
	log_info("%s changed their password", u.name);
	u.must_change = 0;
	o = json_object_new_object();
	json_object_object_add(o, "user", account_user_json(&u));
	json_object_object_add(o, "message", json_object_new_string("password changed; "
	    "the other sessions of this user are ended"));
	web_util_send(r, 200, NULL, o);
out:
	json_object_put(body);
}

static int
account_key_json(const struct apikey_row *k, void *arg)
{
	json_object	*o = json_object_new_object();

	json_object_object_add(o, "id", json_object_new_int64(k->id));
	json_object_object_add(o, "name", json_object_new_string(k->name));
	json_object_object_add(o, "prefix", json_object_new_string(k->prefix));
	json_object_object_add(o, "admin", json_object_new_boolean(k->admin));
	json_object_object_add(o, "owner", k->owner != NULL ?
	    json_object_new_string(k->owner) : NULL);
	json_object_object_add(o, "createdAt", json_object_new_string(k->created));
	json_object_object_add(o, "lastUsedAt", k->last_used != NULL ?
	    json_object_new_string(k->last_used) : NULL);
	json_object_object_add(o, "revokedAt", k->revoked != NULL ?
	    json_object_new_string(k->revoked) : NULL);
	json_object_array_add(arg, o);
	return 0;
}

/* DELETE /api/keys/{id}: an admin revokes any key; a user only their own. */
void
account_keys_revoke(struct http_req *r, void *arg)
{
	const struct access_principal *p = &r->who;
	json_object	*o;
	long		 n;
	int		 rc;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if (p->user.id == 0 && !p->admin) {
		http_error(r, 403, "revoking keys with an operator key needs an admin key");
		return;
	}
	if (util_parse_long(http_arg(r, "id"), 1, 1L << 53, &n) == -1) {
		http_error(r, 400, "a key is named by its numeric id: /api/keys/ID");
		return;
	}
	if ((rc = apikey_revoke(r->db, n, p->admin ? -1 : p->user.id)) == -1) {
		web_util_dberr(r, __func__, "the change could not be stored");
		return;
	}
	if (rc == 1) {
		http_error(r, 404, "you have no live API key with id %ld", n);
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(n));
	json_object_object_add(o, "revoked", json_object_new_boolean(1));
	web_util_send(r, 200, NULL, o);
}

static const struct validate_field account_keys_list_fields[] = {
	{ .name = "all", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table account_keys_list_params = {
	.fields = account_keys_list_fields,
	.what = "parameter"
};

/* GET /api/keys[?all=true]: one's own keys, or (admins) everyone's. */
void
account_keys_list(struct http_req *r, void *arg)
{
	json_object	*o, *list;
	const char	*v;
	int		 all;

	(void)arg;
	if (validate_query(r, &account_keys_list_params) == -1)
		return;
	all = (v = http_param(r, "all")) != NULL && strcmp(v, "true") == 0;
	if (all && !r->who.admin) {
		http_error(r, 403, "listing every user's API keys needs an admin");
		return;
	}
	list = json_object_new_array();
	if (apikey_each(r->db, all ? -1 : r->who.user.id, account_key_json, list) == -1) {
		json_object_put(list);
		http_error(r, 500, "the keys could not be read");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "keys", list);
	web_util_send(r, 200, NULL, o);
}

/* A key name: one line. */
static int
account_check_one_line(const char *v, char *err, size_t errsz)
{
	if (strpbrk(v, "\r\n\t") == NULL)
		return 0;
	snprintf(err, errsz, "must be on one line (no tab or line break)");
	return -1;
}

static const struct validate_field account_key_fields[] = {
	{ .name = "name", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = KEY_NAME_MAX, .check = account_check_one_line },
	{ .name = NULL }
};
static const struct validate_table account_key_body = {
	.fields = account_key_fields, .what = "field"
};

/* POST /api/keys: a new personal key of the signed-in user, shown this once. */
void
account_keys_create(struct http_req *r, void *arg)
{
	const struct access_principal *p = &r->who;
	json_object	*body, *o;
	const char	*name;
	char		*key;
	long long	 id;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	if (p->user.id == 0) {
		http_error(r, 403, "an operator key cannot create keys; sign in as a "
		    "user or use ctxd-admin key create");
		return;
	}
	if ((body = validate_body(r, &account_key_body)) == NULL)
		return;
	name = validate_str(body, "name");
	if ((key = apikey_create_for(r->db, p->user.id, name, p->user.admin, &id)) == NULL) {
		http_error(r, 500, "the key could not be created");
		json_object_put(body);
		return;
	}
	log_info("%s created API key %lld", p->user.name, id);
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "prefix", json_object_new_string_len(key, 12));
	json_object_object_add(o, "admin", json_object_new_boolean(p->user.admin));
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "message", json_object_new_string("the key is shown "
	    "this once; only its hash is stored"));
	account_free_secret(key);
	json_object_put(body);
	web_util_send(r, 201, NULL, o);
}

static int
account_users_json(const struct user *u, void *arg)
{
	json_object_array_add(arg, account_user_json(u));
	return 0;
}

static const struct validate_field account_user_create_fields[] = {
	{ .name = "name", .type = VALIDATE_STRING, .required = 1, .max = USER_NAME_MAX },
	{ .name = "password", .type = VALIDATE_STRING, .required = 1,
	    .max = USER_PASSWORD_MAX },
	{ .name = "role", .type = VALIDATE_STRING, .choices = "admin|member" },
	{ .name = "mustChangePassword", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table account_user_create_body = {
	.fields = account_user_create_fields,
	.what = "field"
};

static const struct validate_field account_user_patch_fields[] = {
	{ .name = "role", .type = VALIDATE_STRING, .choices = "admin|member" },
	{ .name = "disabled", .type = VALIDATE_BOOL },
	{ .name = "password", .type = VALIDATE_STRING, .max = USER_PASSWORD_MAX },
	{ .name = "mustChangePassword", .type = VALIDATE_BOOL },
	{ .name = NULL }
};
static const struct validate_table account_user_patch_body = {
	.fields = account_user_patch_fields,
	.what = "field"
};

/* The validated role of body: 1 admin, 0 member, dflt when absent. */
static int
account_role(json_object *body, int dflt)
{
	const char	*role = validate_str(body, "role");

	return role == NULL ? dflt : strcmp(role, "admin") == 0;
}

/* Who did it, for the log. */
static const char *
account_actor(const struct http_req *r)
{
	return r->who.user.id != 0 ? r->who.user.name : "an operator key";
}

/* GET /api/users. */
void
account_users_list(struct http_req *r, void *arg)
{
	json_object	*o, *list;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1)
		return;
	list = json_object_new_array();
	if (user_each(r->db, account_users_json, list) == -1) {
		json_object_put(list);
		http_error(r, 500, "the users could not be read");
		return;
	}
	o = json_object_new_object();
	json_object_object_add(o, "users", list);
	web_util_send(r, 200, NULL, o);
}

/* POST /api/users. */
void
account_users_create(struct http_req *r, void *arg)
{
	struct user	 u;
	json_object	*body;
	char		 err[256];
	long long	 id;

	(void)arg;
	if (validate_query(r, &web_util_no_params) == -1 ||
	    (body = validate_body(r, &account_user_create_body)) == NULL)
		return;
	if (user_create(r->db, validate_str(body, "name"), account_role(body, 0),
	    validate_str(body, "password"), validate_bool(body, "mustChangePassword", 1),
	    &id, err, sizeof(err)) == -1)
		http_error(r, strstr(err, "already exists") ? 409 : strstr(err,
		    "database") ? 500 : 400, "%s", err);
	else if (user_by_id(r->db, id, &u) != 0)
		http_error(r, 500, "the user could not be read back");
	else {
		log_info("%s created user %s", account_actor(r), u.name);
		web_util_send(r, 201, NULL, account_user_json(&u));
	}
	json_object_put(body);
}

/* The user named in the path: 0 with it in *u, or answered (404, 500) and -1. */
static int
account_user_of_path(struct http_req *r, struct user *u)
{
	const char	*name = http_arg(r, "name");
	int		 rc;

	if (validate_query(r, &web_util_no_params) == -1)
		return -1;
	if (!user_valid_name(name) || (rc = user_by_name(r->db, name, u, NULL)) == 1) {
		http_error(r, 404, "no user named %.64s", name);
		return -1;
	}
	if (rc == -1) {
		http_error(r, 500, "the user could not be read");
		return -1;
	}
	return 0;
}

/* GET /api/users/{name}. */
void
account_users_get(struct http_req *r, void *arg)
{
	struct user	 u;

	(void)arg;
	if (account_user_of_path(r, &u) == 0)
		web_util_send(r, 200, NULL, account_user_json(&u));
}

/*
 * The changes of a PATCH body to user u, applied by accounts_update: 0, or -1 after answering
 * (400 for mustChangePassword without a password, 409 for the last admin, 500).
 */
static int
account_user_apply(struct http_req *r, json_object *body, const struct user *u)
{
	struct user_change c;

	c.password = validate_str(body, "password");
	c.admin = account_role(body, u->admin);
	c.disabled = validate_bool(body, "disabled", u->disabled);
	c.must_change = validate_bool(body, "mustChangePassword", c.password != NULL ? 1 :
	    u->must_change);
	if (c.password == NULL && c.must_change != u->must_change) {
		http_error(r, 400, "field 'mustChangePassword' goes with a new "
		    "'password'");
		return -1;
	}
	switch (accounts_update(r->db, u, &c)) {
	case USER_OK:
		return 0;
	case USER_LAST_ADMIN:
		http_error(r, 409, "%s is the last enabled admin; make another admin "
		    "first", u->name);
		return -1;
	case USER_ERROR:
		break;
	}
	web_util_dberr(r, __func__, "the change could not be stored");
	return -1;
}

/* PATCH /api/users/{name}: role, disabled, password (a reset), mustChangePassword. */
void
account_users_patch(struct http_req *r, void *arg)
{
	struct user	 u;
	json_object	*body;
	const char	*pw;
	char		 err[256];

	(void)arg;
	if (account_user_of_path(r, &u) == -1 ||
	    (body = validate_body(r, &account_user_patch_body)) == NULL)
		return;
	pw = validate_str(body, "password");
	if (u.id == r->who.user.id && (validate_bool(body, "disabled", u.disabled) ||
	    !account_role(body, u.admin))) {
		http_error(r, 409, "you cannot disable yourself or take away your own "
		    "admin role; another admin can");
		goto out;
	}
	if (pw != NULL && user_valid_password(pw, u.name, err, sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		goto out;
	}
	if (account_user_apply(r, body, &u) == -1)
		goto out;
	log_info("%s changed user %s", account_actor(r), u.name);
	if (user_by_id(r->db, u.id, &u) != 0)
		http_error(r, 500, "the user could not be read back");
	else
		web_util_send(r, 200, NULL, account_user_json(&u));
out:
	json_object_put(body);
}

/* DELETE /api/users/{name}: its sessions and keys go with it (ON DELETE CASCADE). */
void
account_users_delete(struct http_req *r, void *arg)
{
	struct user	 u;
	json_object	*o;

	(void)arg;
	if (account_user_of_path(r, &u) == -1)
		return;
	if (u.id == r->who.user.id) {
		http_error(r, 409, "you cannot delete yourself; another admin can");
		return;
	}
	switch (accounts_remove(r->db, &u)) {
	case USER_OK:
		break;
	case USER_LAST_ADMIN:
		http_error(r, 409, "%s is the last enabled admin", u.name);
		return;
	case USER_ERROR:
		web_util_dberr(r, __func__, "the change could not be stored");
		return;
	}
	log_info("%s deleted user %s", account_actor(r), u.name);
	o = json_object_new_object();
	json_object_object_add(o, "deleted", json_object_new_string(u.name));
	web_util_send(r, 200, NULL, o);
}
