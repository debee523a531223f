/*
 * account.c: the account API of ctxd-web (man/ctxd-web.8, ADMIN API): sign-in sessions,
 * password change, personal API keys and, for admins, users.
 *
 *   POST/GET/DELETE /api/session       sign in / who am I / sign out
 *   POST /api/password                 change one's own password
 *   GET/POST /api/keys, DELETE /api/keys/ID
 *   GET/POST /api/users, GET/PATCH/DELETE /api/users/NAME   (admins)
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <json.h>
#include <sqlite3.h>

#include "ctxd.h"
#include "http.h"
#include "web.h"

#define KEY_NAME_MAX	100

static int
account_method(struct http_req *r, const char *m)
{
	return strcmp(r->method, m) == 0;
}

static void
account_bad_method(struct http_req *r, const char *allowed)
{
	char	 h[128];

	snprintf(h, sizeof(h), "Allow: %s\r\n", allowed);
	http_error_hdr(r, 405, h, "%s accepts only %s", r->path, allowed);
}

static void
account_dberr(struct http_req *r, struct web_ctx *c, const char *fn)
{
	log_err("%s: %s", fn, sqlite3_errmsg(c->db));
	db_rollback(c->db);
	http_error(r, 500, "the change could not be stored; the responder log has the "
	    "details");
}

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
account_me_json(const struct web_principal *p)
{
	json_object	*o = json_object_new_object();
	char		 csrf[SESSION_CSRF_LEN + 1];

	json_object_object_add(o, "user", p->user.id != 0 ?
	    account_user_json(&p->user) : NULL);
	json_object_object_add(o, "admin", json_object_new_boolean(p->admin));
	json_object_object_add(o, "via", json_object_new_string(p->via == WEB_SESSION ?
	    "session" : "key"));
	json_object_object_add(o, "mustChangePassword",
	    json_object_new_boolean(p->user.must_change));
	if (p->via == WEB_SESSION) {
		session_csrf(p->token, csrf);
		json_object_object_add(o, "csrfToken", json_object_new_string(csrf));
		json_object_object_add(o, "idleTimeoutSeconds",
		    json_object_new_int(SESSION_IDLE_S));
		explicit_bzero(csrf, sizeof(csrf));
	}
	return o;
}

static const struct web_field login_fields[] = {
	{ "username", WEB_STRING, 1, USER_NAME_MAX },
	{ "password", WEB_STRING, 1, USER_PASSWORD_MAX },
};

/* POST /api/session: sign in with a user name and password. */
static void
account_login(struct http_req *r, struct web_ctx *c)
{
	struct web_principal p;
	struct user	 u;
	json_object	*body;
	const char	*name, *pw, *addr;
	char		*hash = NULL, *token = NULL, lname[USER_NAME_MAX + 1], hdr[256];
	long long	 sid;
	long		 wait;
	size_t		 i;
	int		 found, ok = 0, weaker = 0;

	if ((body = web_json_body(r, login_fields, 2)) == NULL)
		return;
	name = web_json_str(body, "username");
	pw = web_json_str(body, "password");
	if ((addr = http_header(r, "REMOTE_ADDR")) == NULL || *addr == '\0')
		addr = "unknown";
	for (i = 0; name[i] != '\0' && i < USER_NAME_MAX; i++)
		lname[i] = (char)tolower((unsigned char)name[i]);
	lname[i] = '\0';
	if ((wait = session_throttle_wait(c->db, lname, addr)) == -1) {
		http_error(r, 500, "the sign-in could not be checked");
		goto out;
	}
	if (wait > 0) {
		snprintf(hdr, sizeof(hdr), "Retry-After: %ld\r\n", wait);
		http_error_hdr(r, 429, hdr, "too many failed sign-ins for this user "
		    "or from this address; try again in %ld seconds", wait);
		goto out;
	}
	if ((found = user_valid_name(name) ? user_by_name(c->db, name, &u, &hash) : 1) ==
	    -1) {
		http_error(r, 500, "the sign-in could not be checked");
		goto out;
	}
	if (found == 0)
		ok = user_password_verify(hash, pw, &weaker) == 1;
	else
		user_password_dummy(pw);
	if (!ok) {
		log_warn("failed sign-in as %s from %s", lname, addr);
		if (session_throttle_fail(c->db, lname, addr) == -1)
			log_err("%s: the failure could not be counted", __func__);
		http_error(r, 401, "wrong user name or password");
		goto out;
	}
	if (u.disabled) {
		http_error(r, 403, "the account %s is disabled", u.name);
		goto out;
	}
	if (db_begin(c->db) == -1) {
		account_dberr(r, c, __func__);
		goto out;
	}
	/* A hash made with weaker parameters is replaced while the password is at hand. */
	if ((weaker && user_set_password(c->db, u.id, pw, u.must_change) != 0) ||
	    session_throttle_clear(c->db, lname) == -1 ||
	    (token = session_create(c->db, u.id, &sid)) == NULL ||
	    db_commit(c->db) == -1) {
		account_dberr(r, c, __func__);
		goto out;
	}
	log_info("%s signed in from %s", u.name, addr);
	memset(&p, 0, sizeof(p));
	p.via = WEB_SESSION;
	p.session_id = sid;
	p.user = u;
	p.admin = u.admin;
	p.token = token;
	account_cookie(r, token, hdr, sizeof(hdr));
	web_send(r, 200, hdr, account_me_json(&p));
	explicit_bzero(hdr, sizeof(hdr));
out:
	if (token != NULL) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	if (hash != NULL) {
		explicit_bzero(hash, strlen(hash));
		free(hash);
	}
	json_object_put(body);
}

static void
account_session(struct http_req *r, struct web_ctx *c)
{
	struct web_principal p;
	char		 hdr[256];

	if (account_method(r, "POST")) {
		account_login(r, c);
		return;
	}
	if (account_method(r, "GET") || account_method(r, "HEAD")) {
		if (web_authorize(r, c, WEB_NEED_USER | WEB_MAY_MUST_CHANGE, NULL,
		    "reading the session", &p) == 0)
			web_send(r, 200, NULL, account_me_json(&p));
		return;
	}
	if (!account_method(r, "DELETE")) {
		account_bad_method(r, "GET, POST, DELETE");
		return;
	}
	if (web_authorize(r, c, WEB_NEED_USER | WEB_MAY_MUST_CHANGE, NULL, "signing out",
	    &p) == -1)
		return;
	if (p.via != WEB_SESSION) {
		http_error(r, 400, "signing out ends a session; this request carries an "
		    "API key (revoke it with DELETE /api/keys/ID)");
		return;
	}
	if (session_end(c->db, p.session_id) == -1) {
		account_dberr(r, c, __func__);
		return;
	}
	account_cookie(r, NULL, hdr, sizeof(hdr));
	web_send(r, 200, hdr, json_object_new_object());
}

static const struct web_field password_fields[] = {
	{ "currentPassword", WEB_STRING, 1, USER_PASSWORD_MAX },
	{ "newPassword", WEB_STRING, 1, USER_PASSWORD_MAX },
};

/* POST /api/password: change one's own password; ends one's other sessions. */
static void
account_password(struct http_req *r, struct web_ctx *c)
{
	struct web_principal p;
	struct user	 u;
	json_object	*body = NULL, *o;
	const char	*cur, *nw, *addr;
	char		*hash = NULL, err[256], lname[USER_NAME_MAX + 1], hdr[96];
	long		 wait;
	size_t		 i;

	if (!account_method(r, "POST")) {
		account_bad_method(r, "POST");
		return;
	}
	if (web_authorize(r, c, WEB_NEED_USER | WEB_MAY_MUST_CHANGE, NULL,
	    "changing a password", &p) == -1)
		return;
	if (p.user.id == 0) {
		http_error(r, 403, "an operator key has no user and no password");
		return;
	}
	if ((body = web_json_body(r, password_fields, 2)) == NULL)
		return;
	cur = web_json_str(body, "currentPassword");
	nw = web_json_str(body, "newPassword");
	if ((addr = http_header(r, "REMOTE_ADDR")) == NULL || *addr == '\0')
		addr = "unknown";
	for (i = 0; p.user.name[i] != '\0'; i++)
		lname[i] = (char)tolower((unsigned char)p.user.name[i]);
	lname[i] = '\0';
	/* The current password is guessed no faster here than at sign-in. */
	if ((wait = session_throttle_wait(c->db, lname, addr)) > 0) {
		snprintf(hdr, sizeof(hdr), "Retry-After: %ld\r\n", wait);
		http_error_hdr(r, 429, hdr, "too many wrong passwords; try again in %ld "
		    "seconds", wait);
		goto out;
	}
	if (user_by_name(c->db, p.user.name, &u, &hash) != 0 || wait == -1) {
		http_error(r, 500, "the user could not be read");
		goto out;
	}
	if (user_password_verify(hash, cur, NULL) != 1) {
		(void)session_throttle_fail(c->db, lname, addr);
		http_error(r, 403, "the current password is wrong");
		goto out;
	}
	if (user_valid_password(nw, u.name, err, sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		goto out;
	}
	if (strcmp(nw, cur) == 0) {
		http_error(r, 400, "the new password must differ from the current one");
		goto out;
	}
	if (db_begin(c->db) == -1 || user_set_password(c->db, u.id, nw, 0) != 0 ||
	    session_end_user(c->db, u.id, p.via == WEB_SESSION ? p.session_id : 0) == -1 ||
	    session_throttle_clear(c->db, lname) == -1 || db_commit(c->db) == -1) {
		account_dberr(r, c, __func__);
		goto out;
	}
	log_info("%s changed their password", u.name);
	u.must_change = 0;
	o = json_object_new_object();
	json_object_object_add(o, "user", account_user_json(&u));
	json_object_object_add(o, "message", json_object_new_string("password changed; "
	    "the other sessions of this user are ended"));
	web_send(r, 200, NULL, o);
out:
	if (hash != NULL) {
		explicit_bzero(hash, strlen(hash));
		free(hash);
	}
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

static const struct web_field key_fields[] = {
	{ "name", WEB_STRING, 1, KEY_NAME_MAX },
};

/* GET/POST /api/keys and DELETE /api/keys/ID. */
static void
account_keys(struct http_req *r, struct web_ctx *c, const char *rest)
{
	struct web_principal p;
	json_object	*body, *o, *list;
	const char	*name, *all;
	char		*key;
	long long	 id;
	long		 n;
	int		 rc;

	if (rest != NULL) {
		if (!account_method(r, "DELETE")) {
			account_bad_method(r, "DELETE");
			return;
		}
		if (web_authorize(r, c, WEB_NEED_USER, NULL, "revoking an API key",
		    &p) == -1)
			return;
		if (p.user.id == 0 && !p.admin) {
			http_error(r, 403, "revoking keys with an operator key needs "
			    "an admin key");
			return;
		}
		if (util_parse_long(rest, 1, 1L << 53, &n) == -1) {
			http_error(r, 400, "a key is named by its numeric id: "
			    "/api/keys/ID");
			return;
		}
		/* An admin revokes any key; a user only their own. */
		if ((rc = apikey_revoke(c->db, n, p.admin ? -1 : p.user.id)) == -1) {
			account_dberr(r, c, __func__);
			return;
		}
		if (rc == 1) {
			http_error(r, 404, "you have no live API key with id %ld", n);
			return;
		}
		o = json_object_new_object();
		json_object_object_add(o, "id", json_object_new_int64(n));
		json_object_object_add(o, "revoked", json_object_new_boolean(1));
		web_send(r, 200, NULL, o);
		return;
	}
	if (account_method(r, "GET") || account_method(r, "HEAD")) {
		if (web_authorize(r, c, WEB_NEED_USER, NULL, "listing API keys", &p) == -1)
			return;
		all = http_param(r, "all");
		if (all != NULL && strcmp(all, "true") != 0 && strcmp(all, "false") != 0) {
			http_error(r, 400, "parameter 'all' must be 'true' or 'false'");
			return;
		}
		if (all != NULL && strcmp(all, "true") == 0 && !p.admin) {
			http_error(r, 403, "listing every user's API keys needs an admin");
			return;
		}
		list = json_object_new_array();
		if (apikey_each(c->db, all != NULL && strcmp(all, "true") == 0 ? -1 :
		    p.user.id, account_key_json, list) == -1) {
			json_object_put(list);
			http_error(r, 500, "the keys could not be read");
			return;
		}
		o = json_object_new_object();
		json_object_object_add(o, "keys", list);
		web_send(r, 200, NULL, o);
		return;
	}
	if (!account_method(r, "POST")) {
		account_bad_method(r, "GET, POST");
		return;
	}
	if (web_authorize(r, c, WEB_NEED_USER, NULL, "creating an API key", &p) == -1)
		return;
	if (p.user.id == 0) {
		http_error(r, 403, "an operator key cannot create keys; sign in as a "
		    "user or use ctxd-admin key create");
		return;
	}
	if ((body = web_json_body(r, key_fields, 1)) == NULL)
		return;
	name = web_json_str(body, "name");
	if (*name == '\0' || strpbrk(name, "\r\n\t") != NULL) {
		http_error(r, 400, "field 'name' must be 1 to %d characters on one line",
		    KEY_NAME_MAX);
		json_object_put(body);
		return;
	}
	if ((key = apikey_create_for(c->db, p.user.id, name, p.user.admin, &id)) == NULL) {
		http_error(r, 500, "the key could not be created");
		json_object_put(body);
		return;
	}
	log_info("%s created API key %lld", p.user.name, id);
	o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_int64(id));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "prefix", json_object_new_string_len(key, 12));
	json_object_object_add(o, "admin", json_object_new_boolean(p.user.admin));
	json_object_object_add(o, "key", json_object_new_string(key));
	json_object_object_add(o, "message", json_object_new_string("the key is shown "
	    "this once; only its hash is stored"));
	explicit_bzero(key, strlen(key));
	free(key);
	json_object_put(body);
	web_send(r, 201, NULL, o);
}

static int
account_users_json(const struct user *u, void *arg)
{
	json_object_array_add(arg, account_user_json(u));
	return 0;
}

static const struct web_field user_create_fields[] = {
	{ "name", WEB_STRING, 1, USER_NAME_MAX },
	{ "password", WEB_STRING, 1, USER_PASSWORD_MAX },
	{ "role", WEB_STRING, 0, 16 },
	{ "mustChangePassword", WEB_BOOL, 0, 0 },
};

static const struct web_field user_patch_fields[] = {
	{ "role", WEB_STRING, 0, 16 },
	{ "disabled", WEB_BOOL, 0, 0 },
	{ "password", WEB_STRING, 0, USER_PASSWORD_MAX },
	{ "mustChangePassword", WEB_BOOL, 0, 0 },
};

/* -1 (answered 400) unless role is NULL, "admin" or "member"; else 1 admin, 0 member. */
static int
account_role(struct http_req *r, const char *role, int dflt)
{
	if (role == NULL)
		return dflt;
	if (strcmp(role, "admin") == 0)
		return 1;
	if (strcmp(role, "member") == 0)
		return 0;
	http_error(r, 400, "field 'role' must be 'admin' or 'member'");
	return -1;
}

/* PATCH /api/users/NAME: role, disabled, password (a reset), mustChangePassword. */
static void
account_user_patch(struct http_req *r, struct web_ctx *c, const struct web_principal *p,
    struct user *u)
{
	json_object	*body;
	const char	*pw;
	char		 err[256];
	int		 admin, disabled, must;

	if ((body = web_json_body(r, user_patch_fields, 4)) == NULL)
		return;
	if ((admin = account_role(r, web_json_str(body, "role"), u->admin)) == -1)
		goto out;
	disabled = web_json_bool(body, "disabled", u->disabled);
	pw = web_json_str(body, "password");
	must = web_json_bool(body, "mustChangePassword", pw != NULL ? 1 : u->must_change);
	if (u->id == p->user.id && (disabled || !admin)) {
		http_error(r, 409, "you cannot disable yourself or take away your own "
		    "admin role; another admin can");
		goto out;
	}
	if (pw != NULL && user_valid_password(pw, u->name, err, sizeof(err)) == -1) {
		http_error(r, 400, "%s", err);
		goto out;
	}
	if (db_begin(c->db) == -1)
		goto dberr;
	if (u->admin && (!admin || disabled) && user_other_admins(c->db, u->id) == 0) {
		db_rollback(c->db);
		http_error(r, 409, "%s is the last enabled admin; make another admin "
		    "first", u->name);
		goto out;
	}
	if ((admin != u->admin && user_set_role(c->db, u->id, admin) != 0) ||
	    (disabled != u->disabled && user_set_disabled(c->db, u->id, disabled) != 0))
		goto dberr;
	if (pw != NULL) {
		if (user_set_password(c->db, u->id, pw, must) != 0)
			goto dberr;
	} else if (must != u->must_change) {
		http_error(r, 400, "field 'mustChangePassword' goes with a new "
		    "'password'");
		db_rollback(c->db);
		goto out;
	}
	/* A disabled user or a reset password ends the user's sessions. */
	if ((disabled || pw != NULL) && session_end_user(c->db, u->id, 0) == -1)
		goto dberr;
	if (pw != NULL && session_throttle_clear(c->db, u->name) == -1)
		goto dberr;
	if (db_commit(c->db) == -1)
		goto dberr;
	log_info("%s changed user %s", p->user.id ? p->user.name : "an operator key",
	    u->name);
	if (user_by_id(c->db, u->id, u) != 0) {
		http_error(r, 500, "the user could not be read back");
		goto out;
	}
	web_send(r, 200, NULL, account_user_json(u));
	goto out;
dberr:
	account_dberr(r, c, __func__);
out:
	json_object_put(body);
}

/* GET/POST /api/users, GET/PATCH/DELETE /api/users/NAME (admins only). */
static void
account_users(struct http_req *r, struct web_ctx *c, const char *rest)
{
	struct web_principal p;
	struct user	 u;
	json_object	*body, *o, *list;
	char		 err[256];
	long long	 id;
	int		 admin, rc;

	if (web_authorize(r, c, WEB_NEED_ADMIN, NULL, "managing users", &p) == -1)
		return;
	if (rest == NULL && (account_method(r, "GET") || account_method(r, "HEAD"))) {
		list = json_object_new_array();
		if (user_each(c->db, account_users_json, list) == -1) {
			json_object_put(list);
			http_error(r, 500, "the users could not be read");
			return;
		}
		o = json_object_new_object();
		json_object_object_add(o, "users", list);
		web_send(r, 200, NULL, o);
		return;
	}
	if (rest == NULL && account_method(r, "POST")) {
		if ((body = web_json_body(r, user_create_fields, 4)) == NULL)
			return;
		if ((admin = account_role(r, web_json_str(body, "role"), 0)) != -1) {
			if (user_create(c->db, web_json_str(body, "name"), admin,
			    web_json_str(body, "password"),
			    web_json_bool(body, "mustChangePassword", 1), &id, err,
			    sizeof(err)) == -1)
				http_error(r, strstr(err, "already exists") ? 409 :
				    strstr(err, "database") ? 500 : 400, "%s", err);
			else if (user_by_id(c->db, id, &u) != 0)
				http_error(r, 500, "the user could not be read back");
			else {
				log_info("%s created user %s", p.user.id ? p.user.name :
				    "an operator key", u.name);
				web_send(r, 201, NULL, account_user_json(&u));
			}
		}
		json_object_put(body);
		return;
	}
	if (rest == NULL) {
		account_bad_method(r, "GET, POST");
		return;
	}
	if (!user_valid_name(rest) || (rc = user_by_name(c->db, rest, &u, NULL)) == 1) {
		http_error(r, 404, "no user named %.64s", rest);
		return;
	}
	if (rc == -1) {
		http_error(r, 500, "the user could not be read");
		return;
	}
	if (account_method(r, "GET") || account_method(r, "HEAD"))
		web_send(r, 200, NULL, account_user_json(&u));
	else if (account_method(r, "PATCH"))
		account_user_patch(r, c, &p, &u);
	else if (account_method(r, "DELETE")) {
		if (u.id == p.user.id) {
			http_error(r, 409, "you cannot delete yourself; another admin can");
			return;
		}
		if (db_begin(c->db) == -1) {
			account_dberr(r, c, __func__);
			return;
		}
		if (u.admin && !u.disabled && user_other_admins(c->db, u.id) == 0) {
			db_rollback(c->db);
			http_error(r, 409, "%s is the last enabled admin", u.name);
			return;
		}
		/* Its sessions and keys go with it (ON DELETE CASCADE). */
		if (user_delete(c->db, u.id) != 0 || db_commit(c->db) == -1) {
			account_dberr(r, c, __func__);
			return;
		}
		log_info("%s deleted user %s", p.user.id ? p.user.name :
		    "an operator key", u.name);
		o = json_object_new_object();
		json_object_object_add(o, "deleted", json_object_new_string(u.name));
		web_send(r, 200, NULL, o);
	} else
		account_bad_method(r, "GET, PATCH, DELETE");
}

int
account_handle(struct http_req *r, struct web_ctx *c)
{
	const char	*p = r->path;

	if (strcmp(p, "/api/session") == 0)
		account_session(r, c);
	else if (strcmp(p, "/api/password") == 0)
		account_password(r, c);
	else if (strcmp(p, "/api/keys") == 0)
		account_keys(r, c, NULL);
	else if (strncmp(p, "/api/keys/", 10) == 0)
		account_keys(r, c, p + 10);
	else if (strcmp(p, "/api/users") == 0)
		account_users(r, c, NULL);
	else if (strncmp(p, "/api/users/", 11) == 0)
		account_users(r, c, p + 11);
	else
		return 0;
	return 1;
}
