/*
 * setup.c: ctxd setup --mcp: writes each chosen coding agent's MCP server entry, rule
 * file and skill (spec/compat.md, "setup in the client tool"). It asks the deployment
 * only GET /api/client-config and contacts nothing else.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <json.h>

#include "base/buf.h"
#include "base/util.h"
#include "auth/apikey.h"
#include "cli.h"

#define SETUP_NAME		"ctxd"		/* the entry, rule and skill name */
#define SETUP_BEGIN		"<!-- ctxd:begin -->"
#define SETUP_END		"<!-- ctxd:end -->"
#define SETUP_FILE_MAX		(64 * 1024 * 1024)
#define SETUP_KEY_MAX		1024

/*
 * The rule and the skill: the only place of these texts. The rule is what the agent
 * reads on every task; the skill describes the same flow in more detail.
 */
static const char setup_rule[] =
	"Use the ctxd MCP server for any question about a library, framework, SDK, API or\n"
	"CLI tool (setup, configuration, API usage, version differences, errors), even when\n"
	"you think you know the answer: it serves current documentation from this\n"
	"organisation's own ctxd deployment.\n"
	"\n"
	"1. Call `resolve-library-id` with the library's name and the user's question to\n"
	"   get its library ID, unless the user gave an ID of the form `/owner/repo`\n"
	"   (or `/owner/repo/version`): then use that ID as it is.\n"
	"2. Call `query-docs` with the library ID and a specific question, once per\n"
	"   concept you need (not one broad question for everything).\n"
	"3. Answer from the returned documentation and keep its `Source:` links.\n";

static const char setup_skill[] =
	"---\n"
	"name: " SETUP_NAME "\n"
	"description: Look up current documentation of libraries, frameworks, SDKs, APIs and\n"
	"  CLI tools through the ctxd MCP server (resolve-library-id, then query-docs). Use it\n"
	"  whenever a task involves a library's API, configuration, setup or version-specific\n"
	"  behaviour.\n"
	"---\n"
	"\n"
	"# Documentation lookup with ctxd\n"
	"\n"
	"ctxd is this organisation's documentation service. Its MCP server (named `ctxd`)\n"
	"has two tools:\n"
	"\n"
	"- `resolve-library-id` (`libraryName`, `query`): finds the library and answers its\n"
	"  ID (`/owner/repo`), title, description and snippet count.\n"
	"- `query-docs` (`libraryId`, `query`): answers the documentation snippets most\n"
	"  relevant to the question, with their source links.\n"
	"\n"
	"## Steps\n"
	"\n"
	"1. If the user gave a library ID of the form `/owner/repo` (or\n"
	"   `/owner/repo/version`), use it and skip to step 3.\n"
	"2. Call `resolve-library-id` with the library's name and the user's question. Pick\n"
	"   the best match: the name, then the description, then the most code snippets.\n"
	"3. Call `query-docs` with that ID and a specific question, once per concept (for\n"
	"   example one call for authentication, another for pagination). Use the user's\n"
	"   words and the identifiers they mention.\n"
	"4. Answer from the snippets; keep their `Source:` links. If nothing relevant comes\n"
	"   back, say so instead of guessing.\n";

/* Front matter of the whole-file rules. */
static const char setup_cursor_head[] =
	"---\n"
	"description: Use ctxd for library, framework, SDK, API and CLI documentation\n"
	"alwaysApply: true\n"
	"---\n"
	"\n";
static const char setup_vscode_head[] =
	"---\n"
	"applyTo: \"**\"\n"
	"---\n"
	"\n";

enum setup_shape { SHAPE_HTTP, SHAPE_URL, SHAPE_REMOTE, SHAPE_TOML };

/*
 * One coding agent. Paths: [0] global, [1] with --project (relative to the current
 * folder). "~/" is $HOME, "@/" the XDG configuration folder ($XDG_CONFIG_HOME or
 * ~/.config), "%/" Codex's home ($CODEX_HOME or ~/.codex).
 */
struct setup_client {
	const char		*name;
	const char		*label;
	enum setup_shape	 shape;
	const char		*json_key;	/* servers object; NULL for TOML */
	const char		*mcp[2];
	const char		*rule[2];
	int			 rule_block;	/* rule is a marked block of a shared file */
	const char		*rule_head;	/* front matter of a whole-file rule */
	const char		*skill[2];
};

static const struct setup_client setup_clients[] = {
	{ "claude", "Claude Code", SHAPE_HTTP, "mcpServers",
	  { "~/.claude.json", ".mcp.json" },
	  { "~/.claude/rules/" SETUP_NAME ".md", ".claude/rules/" SETUP_NAME ".md" }, 0, "",
	  { "~/.claude/skills/" SETUP_NAME "/SKILL.md",
	    ".claude/skills/" SETUP_NAME "/SKILL.md" } },
	{ "cursor", "Cursor", SHAPE_URL, "mcpServers",
	  { "~/.cursor/mcp.json", ".cursor/mcp.json" },
	  { "~/.cursor/rules/" SETUP_NAME ".mdc", ".cursor/rules/" SETUP_NAME ".mdc" }, 0,
	  setup_cursor_head,
	  { "~/.cursor/skills/" SETUP_NAME "/SKILL.md",
	    ".cursor/skills/" SETUP_NAME "/SKILL.md" } },
	{ "vscode", "VS Code", SHAPE_HTTP, "servers",
	  { "@/Code/User/mcp.json", ".vscode/mcp.json" },
	  { "@/Code/User/prompts/" SETUP_NAME ".instructions.md",
	    ".github/instructions/" SETUP_NAME ".instructions.md" }, 0, setup_vscode_head,
	  { "~/.copilot/skills/" SETUP_NAME "/SKILL.md",
	    ".github/skills/" SETUP_NAME "/SKILL.md" } },
	{ "codex", "Codex", SHAPE_TOML, NULL,
	  { "%/config.toml", ".codex/config.toml" },
	  { "%/AGENTS.md", "AGENTS.md" }, 1, NULL,
	  { "~/.agents/skills/" SETUP_NAME "/SKILL.md",
	    ".agents/skills/" SETUP_NAME "/SKILL.md" } },
	{ "opencode", "OpenCode", SHAPE_REMOTE, "mcp",
	  { "@/opencode/opencode.json", "opencode.json" },
	  { "@/opencode/AGENTS.md", "AGENTS.md" }, 1, NULL,
	  { "~/.agents/skills/" SETUP_NAME "/SKILL.md",
	    ".agents/skills/" SETUP_NAME "/SKILL.md" } },
};
#define SETUP_NCLIENTS	(sizeof(setup_clients) / sizeof(setup_clients[0]))

unsigned
setup_client_bit(const char *name)
{
	size_t	 i;

	for (i = 0; i < SETUP_NCLIENTS; i++)
		if (strcmp(setup_clients[i].name, name) == 0)
			return 1u << i;
	return 0;
}

/* ------------------------------------------------------------------ paths and files */

static const char *setup_home;

/* The file a path template names (malloc'd), or NULL when out of memory. */
static char *
setup_path(const char *tmpl)
{
	struct buf	 b;
	const char	*v;

	buf_init(&b);
	if (strncmp(tmpl, "~/", 2) == 0)
		buf_printf(&b, "%s/%s", setup_home, tmpl + 2);
	else if (strncmp(tmpl, "@/", 2) == 0) {
		if ((v = getenv("XDG_CONFIG_HOME")) != NULL && *v == '/')
			buf_printf(&b, "%s/%s", v, tmpl + 2);
		else
			buf_printf(&b, "%s/.config/%s", setup_home, tmpl + 2);
	} else if (strncmp(tmpl, "%/", 2) == 0) {
		if ((v = getenv("CODEX_HOME")) != NULL && *v == '/')
			buf_printf(&b, "%s/%s", v, tmpl + 2);
		else
			buf_printf(&b, "%s/.codex/%s", setup_home, tmpl + 2);
	} else
		buf_adds(&b, tmpl);
	return buf_detach(&b);
}

/* The path as shown: $HOME/x as ~/x. Points into path or into tmp. */
static const char *
setup_show(const char *path, char *tmp, size_t tmpsz)
{
	size_t	 n = strlen(setup_home);

	if (strncmp(path, setup_home, n) == 0 && path[n] == '/') {
		snprintf(tmp, tmpsz, "~%s", path + n);
		return tmp;
	}
	return path;
}

/*
 * Reads the file an edit goes to: a symbolic link is followed, so that the link stays and
 * its target is edited. *target (malloc'd) is the file to write; *data is NULL and *st
 * zeroed when the file does not exist.
 */
static int
setup_read(const char *path, char **target, char **data, size_t *len, struct stat *st,
    char *err, size_t errsz)
{
	struct stat	 lst;

	*data = NULL;
	*len = 0;
	memset(st, 0, sizeof(*st));
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		if ((*target = realpath(path, NULL)) == NULL) {
			snprintf(err, errsz, "it is a symbolic link whose target cannot be "
			    "read: %s", strerror(errno));
			return -1;
		}
	} else if ((*target = strdup(path)) == NULL) {
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	if (stat(*target, st) == -1) {
		memset(st, 0, sizeof(*st));
		if (errno == ENOENT)
			return 0;
		snprintf(err, errsz, "%s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(err, errsz, "it is not a regular file");
		return -1;
	}
	if (util_read_file(*target, SETUP_FILE_MAX, data, len) == -1) {
		snprintf(err, errsz, "cannot read it: %s", strerror(errno));
		return -1;
	}
	if (memchr(*data, '\0', *len) != NULL) {
		snprintf(err, errsz, "it holds NUL bytes: it is not a text file");
		return -1;
	}
	return 0;
}

/*
 * Writes data to target atomically: a temporary file in the same folder, renamed over.
 * An existing file (st->st_mode != 0) keeps its mode and, when allowed, its owner; a new
 * one gets create_mode minus the umask. Missing parent folders are created.
 */
static int
setup_write(const char *target, const char *data, size_t len, const struct stat *st,
    mode_t create_mode, char *err, size_t errsz)
{
	struct buf	 tmp;
	char		*dir = NULL, *slash;
	mode_t		 um, mode;
	ssize_t		 w;
	int		 fd = -1, rc = -1;

	buf_init(&tmp);
	if ((dir = strdup(target)) == NULL)
		goto nomem;
	if ((slash = strrchr(dir, '/')) == NULL)
		memcpy(dir, ".", 2);	/* fits: the path is at least one byte */
	else if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if (util_mkdir_p(dir, 0755) == -1) {
		snprintf(err, errsz, "cannot create the folder %s: %s", dir,
		    strerror(errno));
		goto out;
	}
	if (buf_printf(&tmp, "%s/.%s.ctxd-XXXXXX", dir,
	    slash != NULL ? strrchr(target, '/') + 1 : target) == -1)
		goto nomem;
	if ((fd = mkstemp(tmp.p)) == -1) {
		snprintf(err, errsz, "cannot create a file in %s: %s", dir,
		    strerror(errno));
		goto out;
	}
	if (st->st_mode != 0) {
		mode = st->st_mode & 07777;
		if ((st->st_uid != geteuid() || st->st_gid != getegid()) &&
		    fchown(fd, st->st_uid, st->st_gid) == -1)
			mode &= ~(mode_t)(S_ISUID | S_ISGID);
	} else {
		um = umask(0);
		umask(um);
		mode = create_mode & ~um;
	}
	if (fchmod(fd, mode) == -1)
		goto ioerr;
	while (len > 0) {
		w = write(fd, data, len);
		if (w == -1 && errno == EINTR)
			continue;
		if (w <= 0)
			goto ioerr;
		data += w;
		len -= (size_t)w;
	}
	if (fsync(fd) == -1)
		goto ioerr;
	if (close(fd) == -1) {
		fd = -1;
		goto ioerr;
	}
	fd = -1;
	if (rename(tmp.p, target) == -1)
		goto ioerr;
	rc = 0;
	goto out;
nomem:
	snprintf(err, errsz, "out of memory");
	goto out;
ioerr:
	snprintf(err, errsz, "cannot write it: %s", strerror(errno));
out:
	if (fd != -1)
		close(fd);
	if (rc == -1 && tmp.p != NULL)
		unlink(tmp.p);
	buf_release(&tmp);
	free(dir);
	return rc;
}

/* ------------------------------------------------------------------ one file */

enum setup_edit { EDIT_RULE, EDIT_SKILL, EDIT_JSON, EDIT_TOML, EDIT_BLOCK };

struct setup_ctx {
	const struct setup_opts	*o;
	const char		*mcp_url;	/* base + /mcp */
	const char		*key;		/* NULL: no credential */
	int			 failed;
};

static struct json_object *
setup_entry(const struct setup_client *c, const char *url, const char *key)
{
	struct json_object	*e = json_object_new_object(), *h;
	struct buf		 v;

	if (c->shape == SHAPE_HTTP)
		json_object_object_add(e, "type", json_object_new_string("http"));
	else if (c->shape == SHAPE_REMOTE)
		json_object_object_add(e, "type", json_object_new_string("remote"));
	json_object_object_add(e, "url", json_object_new_string(url));
	if (c->shape == SHAPE_REMOTE)
		json_object_object_add(e, "enabled", json_object_new_boolean(1));
	if (key != NULL) {
		buf_init(&v);
		buf_printf(&v, "Bearer %s", key);
		h = json_object_new_object();
		json_object_object_add(h, "Authorization", json_object_new_string(v.p));
		json_object_object_add(e, "headers", h);
		explicit_bzero(v.p, v.len);
		buf_release(&v);
	}
	return e;
}

/*
 * Brings one file up to date. what names the change for the report line. A file holding
 * the key is created 0600 (and a warning names an existing one others can read).
 */
static void
setup_file(struct setup_ctx *x, const struct setup_client *c, const char *tmpl,
    enum setup_edit how, const char *what)
{
	struct stat	 st;
	struct buf	 whole, v;
	char		*path = NULL, *target = NULL, *old = NULL, *new = NULL;
	char		 err[512], show[PATH_MAX + 2];
	const char	*shown;
	size_t		 oldlen = 0;
	int		 secret = 0;

	buf_init(&whole);
	buf_init(&v);
	err[0] = '\0';
	if ((path = setup_path(tmpl)) == NULL) {
		snprintf(err, sizeof(err), "out of memory");
		goto fail;
	}
	if (setup_read(path, &target, &old, &oldlen, &st, err, sizeof(err)) == -1)
		goto fail;
	switch (how) {
	case EDIT_JSON:
		secret = x->key != NULL;
		if (jsonedit_set(old != NULL ? old : "", oldlen, c->json_key, SETUP_NAME,
		    setup_entry(c, x->mcp_url, x->key), &new, err, sizeof(err)) == -1)
			goto fail;
		break;
	case EDIT_TOML:
		secret = x->key != NULL;
		if (secret && buf_printf(&v, "Bearer %s", x->key) == -1)
			goto nomem;
		if (tomledit_set(old != NULL ? old : "", oldlen, SETUP_NAME, x->mcp_url,
		    "Authorization", secret ? v.p : NULL, &new, err, sizeof(err)) == -1)
			goto fail;
		break;
	case EDIT_BLOCK:
		if (buf_printf(&whole, "## Documentation lookup (ctxd)\n\n%s", setup_rule) ==
		    -1)
			goto nomem;
		if (blockedit_set(old != NULL ? old : "", oldlen, SETUP_BEGIN, SETUP_END,
		    whole.p, &new, err, sizeof(err)) == -1)
			goto fail;
		break;
	case EDIT_SKILL:
		if (buf_adds(&whole, setup_skill) == -1)
			goto nomem;
		new = buf_detach(&whole);
		break;
	case EDIT_RULE:
		if (buf_printf(&whole, "%s# Documentation lookup (ctxd)\n\n%s",
		    c->rule_head, setup_rule) == -1)
			goto nomem;
		new = buf_detach(&whole);
		break;
	}
	shown = setup_show(path, show, sizeof(show));
	if (old != NULL && strlen(new) == oldlen && memcmp(old, new, oldlen) == 0)
		printf("  %-44s %s: unchanged\n", shown, what);
	else {
		if (setup_write(target, new, strlen(new), &st, secret ? 0600 : 0644, err,
		    sizeof(err)) == -1)
			goto fail;
		printf("  %-44s %s: %s\n", shown, what, old != NULL ? "updated" : "created");
	}
	if (secret && st.st_mode != 0 && (st.st_mode & 077) != 0)
		fprintf(stderr, "ctxd: warning: %s holds the API key and other users can "
		    "read it (mode %04o): chmod 600 it\n", shown,
		    (unsigned)(st.st_mode & 07777));
	goto out;
nomem:
	snprintf(err, sizeof(err), "out of memory");
fail:
	fprintf(stderr, "ctxd: %s: %s: not changed: %s\n", c->label,
	    path != NULL ? setup_show(path, show, sizeof(show)) : tmpl, err);
	x->failed = 1;
out:
	if (v.p != NULL)
		explicit_bzero(v.p, v.len);
	buf_release(&v);
	buf_release(&whole);
	if (new != NULL) {
		explicit_bzero(new, strlen(new));
		free(new);
	}
	free(old);
	free(target);
	free(path);
}

/* ------------------------------------------------------------------ the key */

static int		 setup_tty = -1;
static struct termios	 setup_tty_saved;
static const int	 setup_tty_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
static struct sigaction	 setup_tty_oldsa[4];

static void
setup_tty_restore(void)
{
	if (setup_tty != -1)
		tcsetattr(setup_tty, TCSAFLUSH, &setup_tty_saved);
}

static void
setup_tty_signal(int sig)
{
	setup_tty_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Asks for the key on the terminal (/dev/tty) with echo off; echo comes back on return,
 * exit or a terminating signal. NULL with the reason printed when there is no terminal or
 * nothing was typed.
 */
static char *
setup_prompt_key(const char *base)
{
	struct termios		 t;
	struct sigaction	 sa;
	struct buf		 b;
	char			 ch;
	ssize_t			 n;
	size_t			 i;
	int			 fd;

	buf_init(&b);
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC)) == -1) {
		fprintf(stderr, "ctxd: this deployment requires an API key for MCP and there "
		    "is no terminal to ask for one: pass --api-key KEY or set CTXD_API_KEY\n");
		return NULL;
	}
	if (tcgetattr(fd, &setup_tty_saved) == -1) {
		fprintf(stderr, "ctxd: cannot read the terminal settings: %s\n",
		    strerror(errno));
		close(fd);
		return NULL;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = setup_tty_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < 4; i++)
		sigaction(setup_tty_sigs[i], &sa, &setup_tty_oldsa[i]);
	setup_tty = fd;
	atexit(setup_tty_restore);
	t = setup_tty_saved;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK | ECHONL);
	t.c_lflag |= ICANON;
	if (tcsetattr(fd, TCSAFLUSH, &t) == -1) {
		fprintf(stderr, "ctxd: cannot turn off the terminal's echo: %s\n",
		    strerror(errno));
		goto out;
	}
	dprintf(fd, "API key for %s (input hidden): ", base);
	for (;;) {
		n = read(fd, &ch, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0 || ch == '\n')
			break;
		if (b.len >= SETUP_KEY_MAX || buf_addc(&b, ch) == -1)
			break;
	}
	dprintf(fd, "\n");
out:
	setup_tty_restore();
	setup_tty = -1;
	for (i = 0; i < 4; i++)
		sigaction(setup_tty_sigs[i], &setup_tty_oldsa[i], NULL);
	close(fd);
	if (b.p == NULL || b.len == 0) {
		fprintf(stderr, "ctxd: no API key was entered\n");
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* Trims the key in place and checks it can go into a header: printable ASCII only. */
static int
setup_key_ok(char *k)
{
	size_t	 n, i;

	while (*k == ' ' || *k == '\t')
		memmove(k, k + 1, strlen(k));
	n = strlen(k);
	while (n > 0 && (k[n - 1] == ' ' || k[n - 1] == '\t' || k[n - 1] == '\r'))
		k[--n] = '\0';
	if (n == 0 || n > SETUP_KEY_MAX) {
		fprintf(stderr, "ctxd: the API key is empty or too long\n");
		return -1;
	}
	for (i = 0; i < n; i++)
		if ((unsigned char)k[i] <= 0x20 || (unsigned char)k[i] >= 0x7f) {
			fprintf(stderr, "ctxd: the API key holds a blank or a character "
			    "that is not printable ASCII\n");
			return -1;
		}
	return 0;
}

/* ------------------------------------------------------------------ setup */

/* GET /api/client-config: *auth and the MCP path (malloc'd into *mcp). */
static int
setup_client_config(const char *base, int *auth, char **mcp, char **version)
{
	struct json_object	*o = NULL, *v;
	struct buf		 body;
	const char		*s;
	char			 err[512], tmp[256];
	long			 status;
	int			 rc = -1;

	buf_init(&body);
	*mcp = *version = NULL;
	if (ctxd_get(base, "/api/client-config", NULL, &body, &status, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "ctxd: cannot reach %s: %s\n", base, err);
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "ctxd: %s does not look like a ctxd deployment: "
		    "GET /api/client-config answered HTTP %ld (%s)\n", base, status,
		    ctxd_error_text(&body, status, tmp, sizeof(tmp)));
		goto out;
	}
	if (body.p == NULL || (o = json_tokener_parse(body.p)) == NULL ||
	    !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "mcpAuthRequired", &v) ||
	    !json_object_is_type(v, json_type_boolean)) {
		fprintf(stderr, "ctxd: %s does not look like a ctxd deployment: "
		    "GET /api/client-config did not answer its JSON\n", base);
		goto out;
	}
	*auth = json_object_get_boolean(v);
	s = "/mcp";
	if (json_object_object_get_ex(o, "mcpUrl", &v) &&
	    json_object_is_type(v, json_type_string)) {
		const char *p = json_object_get_string(v);

		/* a path below the root: '/' then letters, digits, '/', '-', '_', '.' */
		if (p[0] == '/' && strstr(p, "..") == NULL && strstr(p, "//") == NULL &&
		    strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789/-_.") == strlen(p))
			s = p;
	}
	*mcp = strdup(s);
	if (json_object_object_get_ex(o, "version", &v) &&
	    json_object_is_type(v, json_type_string))
		*version = strdup(json_object_get_string(v));
	rc = *mcp != NULL ? 0 : -1;
out:
	json_object_put(o);
	buf_release(&body);
	return rc;
}

int
setup_run(const struct setup_opts *o)
{
	struct setup_ctx	 x;
	const struct setup_client *c;
	struct buf		 url;
	char			*mcp = NULL, *version = NULL, *key = NULL;
	const char		*env;
	size_t			 i;
	int			 auth = 0, scope = o->project ? 1 : 0, rc = 1;

	buf_init(&url);
	memset(&x, 0, sizeof(x));
	x.o = o;
	if ((setup_home = getenv("HOME")) == NULL || setup_home[0] != '/') {
		if (!o->project) {
			fprintf(stderr, "ctxd: HOME is not set to an absolute path\n");
			return 1;
		}
		setup_home = "/nonexistent";
	}
	if (setup_client_config(o->base, &auth, &mcp, &version) == -1)
		goto out;
	if (buf_printf(&url, "%s%s", o->base, mcp) == -1)
		goto out;
	x.mcp_url = url.p;
	if (auth) {
		if (o->api_key != NULL)
			key = strdup(o->api_key);
		else if ((env = getenv("CTXD_API_KEY")) != NULL && *env != '\0')
			key = strdup(env);
		else if (o->yes) {
			fprintf(stderr, "ctxd: %s requires an API key for MCP and --yes does "
			    "not let ctxd ask for one: pass --api-key KEY or set "
			    "CTXD_API_KEY\n", o->base);
			goto out;
		} else if ((key = setup_prompt_key(o->base)) == NULL)
			goto out;
		if (key == NULL || setup_key_ok(key) == -1)
			goto out;
		if (strncmp(key, APIKEY_PREFIX, strlen(APIKEY_PREFIX)) != 0)
			fprintf(stderr, "ctxd: warning: the API key does not start with "
			    "\"%s\" like the keys of a ctxd deployment; writing it "
			    "anyway\n", APIKEY_PREFIX);
		x.key = key;
	}
	printf("ctxd %s at %s: MCP server %s, %s\n", version != NULL ? version : "",
	    o->base, x.mcp_url, auth ? "authentication required (the API key is "
	    "written into the configuration)" : "no authentication (no key is written)");
	if (o->project) {
		char *cwd = getcwd(NULL, 0);

		printf("Project folder: %s\n", cwd != NULL ? cwd : ".");
		free(cwd);
	}
	if (!auth && (o->api_key != NULL || getenv("CTXD_API_KEY") != NULL))
		printf("  (the API key given is not needed and not written)\n");
	for (i = 0; i < SETUP_NCLIENTS; i++) {
		if (!(o->clients & (1u << i)))
			continue;
		c = &setup_clients[i];
		printf("%s:\n", c->label);
		if (c->shape == SHAPE_TOML)
			setup_file(&x, c, c->mcp[scope], EDIT_TOML,
			    "mcp_servers." SETUP_NAME);
		else {
			char what[64];

			snprintf(what, sizeof(what), "%s.%s", c->json_key, SETUP_NAME);
			setup_file(&x, c, c->mcp[scope], EDIT_JSON, what);
		}
		setup_file(&x, c, c->rule[scope], c->rule_block ? EDIT_BLOCK : EDIT_RULE,
		    c->rule_block ? "rule block" : "rule");
		setup_file(&x, c, c->skill[scope], EDIT_SKILL, "skill");
	}
	if (x.failed)
		fprintf(stderr, "ctxd: some files were not changed (see above)\n");
	else
		printf("Restart the agents (or reload their MCP servers) to use ctxd.\n");
	rc = x.failed ? 1 : 0;
out:
	if (key != NULL) {
		explicit_bzero(key, strlen(key));
		free(key);
	}
	buf_release(&url);
	free(mcp);
	free(version);
	return rc;
}
