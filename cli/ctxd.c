/*
 * ctxd: the client tool of a ctxd deployment.
 *   ctxd setup --mcp --base-url URL (--claude|--cursor|--vscode|--codex|--opencode)...
 *        [--project] [--api-key KEY] [--yes]
 *   ctxd library NAME [QUERY]        GET /api/v2/libs/search, printed readably
 *   ctxd docs ID QUERY               GET /api/v2/context, the text as it is
 * See man/ctxd.1.
 */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json.h>

#include "base/buf.h"
#include "net/fetch.h"
#include "cli.h"

static void
ctxd_usage(FILE *f)
{
	fprintf(f,
	    "usage: ctxd setup --mcp --base-url URL (--claude|--cursor|--vscode|--codex|"
	    "--opencode)...\n"
	    "                  [--project] [--api-key KEY] [--yes]\n"
	    "       ctxd [--base-url URL] [--api-key KEY] [--json] library NAME [QUERY]\n"
	    "       ctxd [--base-url URL] [--api-key KEY] [--json] docs ID QUERY\n"
	    "       ctxd --help | --version\n"
	    "URL is the deployment's root (http://host:port); CTXD_BASE_URL and CTXD_API_KEY\n"
	    "stand in for --base-url and --api-key. See ctxd(1).\n");
}

/* ------------------------------------------------------------------ output */

static int cli_tty;

/* Prints server text; on a terminal, control characters other than \n and \t become '?'. */
static void
ctxd_put(const char *s)
{
	const unsigned char	*p;

	if (!cli_tty) {
		fputs(s, stdout);
		return;
	}
	for (p = (const unsigned char *)s; *p != '\0'; p++)
		putchar((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f ? '?' : *p);
}

static const char *
ctxd_str(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* A number member, or -1 when absent or not a number. */
static long long
ctxd_num(struct json_object *o, const char *k)
{
	struct json_object	*v;

	if (!json_object_object_get_ex(o, k, &v) || (!json_object_is_type(v, json_type_int) &&
	    !json_object_is_type(v, json_type_double)))
		return -1;
	return json_object_get_int64(v);
}

/* Prints the search results; 0 when there was at least one. */
static int
ctxd_print_libraries(const char *json, const char *name)
{
	struct json_object	*o, *res, *r, *vers;
	const char		*s;
	long long		 n;
	size_t			 i, j, count;
	int			 rc = 1;

	if ((o = json_tokener_parse(json)) == NULL ||
	    !json_object_object_get_ex(o, "results", &res) ||
	    !json_object_is_type(res, json_type_array)) {
		fprintf(stderr, "ctxd: the search answer is not the expected JSON\n");
		json_object_put(o);
		return 2;
	}
	count = json_object_array_length(res);
	if (count == 0) {
		fprintf(stderr, "ctxd: no library matches \"%s\"\n", name);
		json_object_put(o);
		return 1;
	}
	for (i = 0; i < count; i++) {
		r = json_object_array_get_idx(res, i);
		if (!json_object_is_type(r, json_type_object))
			continue;
		if (i > 0)
			putchar('\n');
		ctxd_put((s = ctxd_str(r, "title")) != NULL ? s : "(untitled)");
		fputs(" (", stdout);
		ctxd_put((s = ctxd_str(r, "id")) != NULL ? s : "?");
		fputs(")\n", stdout);
		if ((s = ctxd_str(r, "description")) != NULL && *s != '\0') {
			fputs("  ", stdout);
			ctxd_put(s);
			putchar('\n');
		}
		fputs("  ", stdout);
		if ((n = ctxd_num(r, "totalSnippets")) >= 0)
			printf("snippets: %lld  ", n);
		if ((n = ctxd_num(r, "totalTokens")) >= 0)
			printf("tokens: %lld  ", n);
		if ((n = ctxd_num(r, "trustScore")) >= 0)
			printf("trust: %lld  ", n);
		if ((s = ctxd_str(r, "state")) != NULL) {
			fputs("state: ", stdout);
			ctxd_put(s);
			fputs("  ", stdout);
		}
		if ((s = ctxd_str(r, "lastUpdateDate")) != NULL && *s != '\0') {
			fputs("updated: ", stdout);
			ctxd_put(s);
		}
		putchar('\n');
		if (json_object_object_get_ex(r, "versions", &vers) &&
		    json_object_is_type(vers, json_type_array) &&
		    json_object_array_length(vers) > 0) {
			fputs("  versions:", stdout);
			for (j = 0; j < json_object_array_length(vers); j++) {
				s = json_object_get_string(json_object_array_get_idx(vers, j));
				putchar(' ');
				ctxd_put(s != NULL ? s : "?");
			}
			putchar('\n');
		}
	}
	rc = 0;
	json_object_put(o);
	return rc;
}

/* ------------------------------------------------------------------ library, docs */

/* Appends "&name=value" (or "?name=value" first) URL-encoded. */
static int
ctxd_param(struct buf *b, const char *name, const char *value)
{
	char	*e;
	int	 rc;

	if ((e = fetch_escape(value)) == NULL)
		return -1;
	rc = buf_printf(b, "%c%s=%s", strchr(b->p, '?') != NULL ? '&' : '?', name, e);
	free(e);
	return rc;
}

/* Runs one query command: what is "library" or "docs". Returns the exit status. */
static int
ctxd_query(const char *base, const char *key, int json, const char *what,
    const char *a, const char *b)
{
	struct buf	 path, body;
	char		 err[512], tmp[1024];
	long		 status;
	int		 rc = 1;

	buf_init(&path);
	buf_init(&body);
	if (strcmp(what, "library") == 0) {
		if (buf_adds(&path, "/api/v2/libs/search") == -1 ||
		    ctxd_param(&path, "libraryName", a) == -1 ||
		    ctxd_param(&path, "query", b != NULL ? b : a) == -1)
			goto nomem;
	} else if (buf_adds(&path, "/api/v2/context") == -1 ||
	    ctxd_param(&path, "libraryId", a) == -1 ||
	    ctxd_param(&path, "query", b) == -1 ||
	    (json && ctxd_param(&path, "type", "json") == -1))
		goto nomem;
	if (ctxd_get(base, path.p, key, &body, &status, err, sizeof(err)) == -1) {
		fprintf(stderr, "ctxd: cannot reach %s: %s\n", base, err);
		goto out;
	}
	if (status != 200) {
		fprintf(stderr, "ctxd: %s (HTTP %ld)\n", ctxd_error_text(&body, status, tmp,
		    sizeof(tmp)), status);
		goto out;
	}
	if (strcmp(what, "library") == 0 && !json)
		rc = ctxd_print_libraries(body.p, a);
	else {
		ctxd_put(body.p);
		if (body.len > 0 && body.p[body.len - 1] != '\n')
			putchar('\n');
		rc = 0;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "ctxd: cannot write the answer\n");
		rc = 1;
	}
	goto out;
nomem:
	fprintf(stderr, "ctxd: out of memory\n");
out:
	buf_release(&path);
	buf_release(&body);
	return rc;
}

/* ------------------------------------------------------------------ main */

enum {
	OPT_BASE = 256, OPT_KEY, OPT_MCP, OPT_PROJECT, OPT_JSON, OPT_VERSION,
	OPT_CLIENT	/* --claude, --cursor, ...: OPT_CLIENT + index below */
};

static const char *const cli_clients[] = { "claude", "cursor", "vscode", "codex", "opencode" };

int
main(int argc, char *argv[])
{
	static struct option	 longopts[] = {
		{ "base-url",	required_argument,	NULL, OPT_BASE },
		{ "api-key",	required_argument,	NULL, OPT_KEY },
		{ "mcp",	no_argument,		NULL, OPT_MCP },
		{ "project",	no_argument,		NULL, OPT_PROJECT },
		{ "yes",	no_argument,		NULL, 'y' },
		{ "json",	no_argument,		NULL, OPT_JSON },
		{ "help",	no_argument,		NULL, 'h' },
		{ "version",	no_argument,		NULL, OPT_VERSION },
		{ "claude",	no_argument,		NULL, OPT_CLIENT + 0 },
		{ "cursor",	no_argument,		NULL, OPT_CLIENT + 1 },
		{ "vscode",	no_argument,		NULL, OPT_CLIENT + 2 },
		{ "codex",	no_argument,		NULL, OPT_CLIENT + 3 },
		{ "opencode",	no_argument,		NULL, OPT_CLIENT + 4 },
		{ NULL,		0,			NULL, 0 }
	};
	struct setup_opts	 so;
	const char		*base_arg = NULL, *key = NULL, *cmd;
	char			*base = NULL, err[512];
	int			 ch, json = 0, setup_only = 0, rc = 2;

	memset(&so, 0, sizeof(so));
	while ((ch = getopt_long(argc, argv, "yh", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_BASE:
			base_arg = optarg;
			break;
		case OPT_KEY:
			key = optarg;
			break;
		case OPT_MCP:
			setup_only = 1;
			break;
		case OPT_PROJECT:
			so.project = setup_only = 1;
			break;
		case 'y':
			so.yes = setup_only = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		case 'h':
			ctxd_usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("ctxd %s\n", PACKAGE_VERSION);
			return 0;
		default:
			if (ch >= OPT_CLIENT && ch < OPT_CLIENT + 5) {
				so.clients |= setup_client_bit(cli_clients[ch - OPT_CLIENT]);
				setup_only = 1;
				break;
			}
			ctxd_usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1) {
		ctxd_usage(stderr);
		return 2;
	}
	cmd = argv[0];
	if (strcmp(cmd, "setup") != 0 && strcmp(cmd, "library") != 0 &&
	    strcmp(cmd, "docs") != 0) {
		fprintf(stderr, "ctxd: unknown command %s\n", cmd);
		ctxd_usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "setup") != 0 && setup_only) {
		fprintf(stderr, "ctxd: --mcp, --project, --yes and the client options "
		    "belong to ctxd setup\n");
		return 2;
	}
	if ((strcmp(cmd, "setup") == 0 && (argc != 1 || json)) ||
	    (strcmp(cmd, "library") == 0 && (argc < 2 || argc > 3)) ||
	    (strcmp(cmd, "docs") == 0 && argc != 3)) {
		ctxd_usage(stderr);
		return 2;
	}
	if (strcmp(cmd, "setup") == 0 && so.clients == 0) {
		fprintf(stderr, "ctxd: choose at least one agent: --claude, --cursor, "
		    "--vscode, --codex or --opencode\n");
		return 2;
	}
	if (base_arg == NULL && (base_arg = getenv("CTXD_BASE_URL")) != NULL &&
	    *base_arg == '\0')
		base_arg = NULL;
	if (base_arg == NULL) {
		fprintf(stderr, "ctxd: give the deployment's URL with --base-url URL "
		    "(or CTXD_BASE_URL)\n");
		return 2;
	}
	if (fetch_global_init() == -1) {
		fprintf(stderr, "ctxd: libcurl could not start\n");
		return 1;
	}
	if ((base = ctxd_base_url(base_arg, err, sizeof(err))) == NULL) {
		fprintf(stderr, "ctxd: %s\n", err);
		goto out;
	}
	cli_tty = isatty(STDOUT_FILENO);
	if (strcmp(cmd, "setup") == 0) {
		so.base = base;
		so.api_key = key;
		rc = setup_run(&so);
	} else {
		if (key == NULL && (key = getenv("CTXD_API_KEY")) != NULL && *key == '\0')
			key = NULL;
		if (key != NULL && strpbrk(key, "\r\n") != NULL) {
			fprintf(stderr, "ctxd: the API key holds a line break\n");
			rc = 2;
			goto out;
		}
		rc = ctxd_query(base, key, json, cmd, argv[1], argc > 2 ? argv[2] : NULL);
	}
out:
	free(base);
	fetch_global_cleanup();
	return rc;
}
