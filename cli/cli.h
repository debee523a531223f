/*
 * cli.h: the modules of the ctxd client tool (the files in cli/). The editors are pure
 * functions (text in, text out) so that t/unit/test-cliedit can check them without files.
 */
#ifndef CLI_H
#define CLI_H

#include <stddef.h>
#include <sys/types.h>

struct json_object;

/* ---------------------------------------------------------------- jsonedit.c */

/*
 * Sets in[key][name] = entry (consumed) in the JSON text in (empty or blank: {}), keeping
 * every other member and the members' order; *out (malloc'd) is the whole document,
 * pretty-printed with two spaces and a final newline. Refuses, with the reason in err,
 * text that is not strict JSON (JSON with comments would lose them), a top level that is
 * not an object and a key whose value is not an object.
 */
int	 jsonedit_set(const char *in, size_t len, const char *key, const char *name,
	    struct json_object *entry, char **out, char *err, size_t errsz);

/* ---------------------------------------------------------------- tomledit.c */

/*
 * Sets the [mcp_servers.<name>] table of a Codex config.toml to url = <url> and, when
 * header_value is not NULL, a [mcp_servers.<name>.http_headers] table with
 * <header_name> = <header_value>. The existing tables of that server (and their
 * sub-tables) are replaced where the first of them was; with none, the tables are
 * appended. Every other line is kept byte for byte. Refuses (reason in err) forms it does
 * not edit: an inline or dotted-key definition of the server or of mcp_servers, arrays of
 * tables named mcp_servers, unterminated strings or brackets.
 */
int	 tomledit_set(const char *in, size_t len, const char *name, const char *url,
	    const char *header_name, const char *header_value, char **out,
	    char *err, size_t errsz);

/* ---------------------------------------------------------------- blockedit.c */

/*
 * Replaces the block of lines from the line begin to the line end (markers included) in
 * in with begin, body (ending in a newline) and end; further such blocks are dropped.
 * Without a block, appends it after a blank line. Refuses a begin marker without its end.
 */
int	 blockedit_set(const char *in, size_t len, const char *begin, const char *end,
	    const char *body, char **out, char *err, size_t errsz);

/* ---------------------------------------------------------------- setup.c */

struct setup_opts {
	const char	*base;		/* validated root URL, no trailing '/' */
	const char	*api_key;	/* --api-key or NULL */
	unsigned	 clients;	/* bit per client, in table order */
	int		 project;	/* --project: the current folder, not HOME */
	int		 yes;		/* never prompt */
};

/* Bit of a client flag name ("claude"), 0 if unknown. */
unsigned setup_client_bit(const char *name);
/* Runs ctxd setup --mcp; returns the exit status. */
int	 setup_run(const struct setup_opts *);

/* ---------------------------------------------------------------- client.c */

/*
 * Validates a deployment root URL: http or https, a host, no credentials, query or
 * fragment, not ending in /mcp, /api or /api/v2; trailing '/' stripped. Returns the URL
 * (malloc'd) or NULL with the reason in err.
 */
char	*ctxd_base_url(const char *url, char *err, size_t errsz);
/*
 * GET base + path (path holds any query string) with the key as Authorization: Bearer when
 * not NULL. Returns 0 with the status and the body (NUL-terminated) or -1 with the transport
 * error in err. Follows no redirect.
 */
struct buf;
int	 ctxd_get(const char *base, const char *path, const char *key, struct buf *body,
	    long *status, char *err, size_t errsz);
/* The "error" text of a JSON error body, or a description of the status (static/in body). */
const char *ctxd_error_text(struct buf *body, long status, char *tmp, size_t tmpsz);

#endif
