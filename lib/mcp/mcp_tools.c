/*
 * mcp_tools.c: the tools of ctxd-mcp, one table (mcp_tools, see mcp.h) that tools/list
 * renders and tools/call dispatches by, and their handlers, which answer from
 * lib/search/search.c: the same library search and the same context text as
 * GET /api/v2/libs/search and GET /api/v2/context (spec/compat.md has the shapes).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/validate.h"
#include "mcp/mcp.h"
#include "search/format.h"
#include "search/search.h"
#include "sources/libid.h"

/* A tool result (mcp.h): the text as one content item. */
json_object *
mcp_tool_text(const char *text, size_t len, int is_error)
{
	json_object	*res = json_object_new_object(), *content, *item;

	content = json_object_new_array();
	item = json_object_new_object();
	json_object_object_add(item, "type", json_object_new_string("text"));
	json_object_object_add(item, "text", json_object_new_string_len(text, (int)len));
	json_object_array_add(content, item);
	json_object_object_add(res, "content", content);
	if (is_error)
		json_object_object_add(res, "isError", json_object_new_boolean(1));
	return res;
}

/* ------------------------------------------------------------------ resolve-library-id */

static const char mcp_tools_resolve_text[] =
    "Finds the library ID (/owner/repo) that query-docs needs, among the libraries "
    "indexed on this ctxd instance, for the name of a library, framework, SDK, API or "
    "CLI tool. Call it before query-docs unless the user already gave an ID of the form "
    "/owner/repo or /owner/repo/version.\n\n"
    "Returns the matching libraries, best first, each with its title, library ID, "
    "description, number of code snippets, source reputation and, when known, its "
    "versions. Choose the library whose name and description fit the task best; more "
    "code snippets means better coverage. When nothing matches, the library is not "
    "indexed here: say so instead of guessing an ID. Do not call it more than 3 times "
    "for one question.";

/*
 * The arguments, from which tools/list makes the inputSchema (validate_schema). query is
 * asked for, but older clients leave it out (VALIDATE_ASKED).
 */
static const struct validate_field mcp_tools_resolve_fields[] = {
	{ .name = "libraryName", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX, .doc = "Name of the library to look for, as its users "
	    "write it (e.g. 'Next.js', 'express', 'requests')." },
	{ .name = "query", .type = VALIDATE_STRING, .required = VALIDATE_ASKED, .min = 1,
	    .max = SEARCH_TEXT_MAX,
	    .doc = "What the user is trying to do with the library; used to rank the "
	    "matching libraries. Do not include secrets such as API keys or passwords." },
	{ .name = NULL }
};
static const struct validate_table mcp_tools_resolve_args = {
	.fields = mcp_tools_resolve_fields,
	.allow_unknown = 1,
	.what = "argument"
};

static const struct mcp_alias mcp_tools_resolve_aliases[] = {
	{ "query", "userQuery|question" },
	{ NULL, NULL }
};

/*
 * Appends s on one line: a line break or other control character (C0, DEL, C1, U+2028,
 * U+2029) becomes a space, so that a title or description cannot add lines that read as
 * further entries. -1 on no memory.
 */
static int
mcp_tools_addline(struct buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s != NULL ? s : "");
	size_t		 n;

	while (*p != '\0') {
		n = p[0] < 0x20 || p[0] == 0x7f ? 1 : p[0] == 0xc2 && p[1] >= 0x80 &&
		    p[1] <= 0x9f ? 2 : p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 ||
		    p[2] == 0xa9) ? 3 : 0;
		if (n > 0) {
			if (buf_addc(out, ' ') == -1)
				return -1;
			p += n;
			continue;
		}
		for (n = 1; p[n] != '\0' && p[n] >= 0x20 && p[n] != 0x7f && p[n] != 0xc2 &&
		    p[n] != 0xe2; n++)
			continue;
		if (buf_add(out, p, n) == -1)
			return -1;
		p += n;
	}
	return 0;
}

/* Appends "\n- " label ": " and the value on one line. */
static int
mcp_tools_field(struct buf *out, const char *label, const char *value)
{
	return buf_printf(out, "%s- %s: ", out->len > 0 &&
	    out->p[out->len - 1] != '\n' ? "\n" : "", label) == -1 ||
	    mcp_tools_addline(out, value) == -1 ? -1 : 0;
}

int
mcp_tools_format_libraries(const char *json, struct buf *out)
{
	json_object	*root, *results, *r, *v;
	size_t		 i, n, k;
	double		 trust;
	const char	*rep;
	int		 rc = -1;

	if ((root = json_tokener_parse(json)) == NULL)
		return -1;
	if (!json_object_object_get_ex(root, "results", &results) ||
	    !json_object_is_type(results, json_type_array))
		goto out;
	n = json_object_array_length(results);
	if (n == 0) {
		rc = buf_adds(out, "No libraries matched that name on this server. Check "
		    "the spelling or try the repository or package name; if the library "
		    "is not indexed here, an operator can add it.");
		goto out;
	}
	if (buf_adds(out, "Available Libraries:\n\n") == -1)
		goto out;
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(results, i);
		if (i > 0 && buf_adds(out, "\n----------\n") == -1)
			goto out;
#define STR(key) (json_object_object_get_ex(r, key, &v) && \
	json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "")
		if (mcp_tools_field(out, "Title", STR("title")) == -1 ||
		    mcp_tools_field(out, "Context7-compatible library ID", STR("id")) == -1 ||
		    mcp_tools_field(out, "Description", STR("description")) == -1)
			goto out;
		if (json_object_object_get_ex(r, "totalSnippets", &v) &&
		    json_object_get_int64(v) != -1 &&
		    buf_printf(out, "\n- Code Snippets: %lld",
		    (long long)json_object_get_int64(v)) == -1)
			goto out;
		rep = "Unknown";
		if (json_object_object_get_ex(r, "trustScore", &v) &&
		    (trust = json_object_get_double(v)) >= 0)
			rep = trust >= 7 ? "High" : trust >= 4 ? "Medium" : "Low";
		if (buf_printf(out, "\n- Source Reputation: %s", rep) == -1)
			goto out;
		if (json_object_object_get_ex(r, "benchmarkScore", &v) &&
		    json_object_get_double(v) > 0 &&
		    buf_printf(out, "\n- Benchmark Score: %s", json_object_to_json_string_ext(
		    v, JSON_C_TO_STRING_PLAIN)) == -1)
			goto out;
		if (json_object_object_get_ex(r, "versions", &v) &&
		    json_object_is_type(v, json_type_array) &&
		    json_object_array_length(v) > 0) {
			if (buf_adds(out, "\n- Versions: ") == -1)
				goto out;
			for (k = 0; k < json_object_array_length(v); k++)
				if ((k > 0 && buf_adds(out, ", ") == -1) ||
				    mcp_tools_addline(out, json_object_get_string(
				    json_object_array_get_idx(v, k))) == -1)
					goto out;
		}
		if (*STR("source") != '\0' &&
		    mcp_tools_field(out, "Source", STR("source")) == -1)
			goto out;
		if (strcmp(STR("origin"), "upstream") == 0 &&
		    buf_adds(out, "\n- Origin: upstream (public documentation, answered "
		    "through this server)") == -1)
			goto out;
#undef STR
	}
	rc = 0;
out:
	json_object_put(root);
	return rc;
}

/* resolve-library-id: the library search, as text. A failed search is a tool error. */
static json_object *
mcp_tools_resolve(struct mcp_ctx *c, json_object *args)
{
	static const char failed[] = "the library search failed; the server log has the "
	    "details";
	const char	*query = validate_str(args, "query");
	json_object	*res;
	struct buf	 json, text;

	buf_init(&json);
	buf_init(&text);
	if (search_libraries(c->search, validate_str(args, "libraryName"), query,
	    &json) == -1 || mcp_tools_format_libraries(json.p, &text) == -1)
		res = mcp_tool_text(failed, sizeof(failed) - 1, 1);
	else
		res = mcp_tool_text(text.p, text.len, 0);
	buf_release(&json);
	buf_release(&text);
	return res;
}

/* ------------------------------------------------------------------ query-docs */

static const char mcp_tools_docs_text[] =
    "Returns the documentation snippets of one library that best answer a question: "
    "explanations and code examples with their source URLs, from the library's indexed "
    "documentation on this ctxd instance, as plain text ready to use. Needs the exact "
    "library ID from resolve-library-id, or one the user gave as /owner/repo or "
    "/owner/repo/version.\n\n"
    "Ask about one concept per call and be specific (good: 'set up JWT authentication "
    "middleware'; too vague: 'auth'); call it again for another concept rather than "
    "combining several in one query. Do not call it more than 3 times for one "
    "question.";

/* The arguments, from which tools/list makes the inputSchema (validate_schema). */
static const struct validate_field mcp_tools_docs_fields[] = {
	{ .name = "libraryId", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX, .check = libid_check, .doc = "Exact library ID, "
	    "e.g. '/vercel/next.js' or '/vercel/next.js/v14.3.0', from resolve-library-id "
	    "or from the user." },
	{ .name = "query", .type = VALIDATE_STRING, .required = 1, .min = 1,
	    .max = SEARCH_TEXT_MAX, .doc = "The question, about one concept, in natural "
	    "language (at most 500 characters). Do not include secrets such as API keys or "
	    "passwords." },
	{ .name = NULL }
};
static const struct validate_table mcp_tools_docs_args = {
	.fields = mcp_tools_docs_fields,
	.allow_unknown = 1,
	.what = "argument"
};

static const struct mcp_alias mcp_tools_docs_aliases[] = {
	{ "libraryId", "context7CompatibleLibraryID|libraryID" },
	{ "query", "userQuery|question" },
	{ NULL, NULL }
};

/*
 * The context text of libid for query in budget tokens (0: the default), exactly as
 * GET /api/v2/context answers it; search_answer's refusals (unknown library, first
 * indexing not finished) are tool errors with its message.
 */
static json_object *
mcp_tools_context(struct mcp_ctx *c, const char *libid, const char *query, long budget)
{
	struct buf	 out;
	json_object	*res = NULL;
	int		 status;

	buf_init(&out);
	status = search_answer(c->search, libid, query, NULL,
	    budget > 0 ? budget : FORMAT_DEFAULT_TOKENS, 0, 0, &out);
	if (status != -1 && out.p != NULL)
		res = mcp_tool_text(out.p, out.len, status != 200);
	else
		log_err("%s: the context of %s could not be built", __func__, libid);
	buf_release(&out);
	return res;
}

static json_object *
mcp_tools_docs(struct mcp_ctx *c, json_object *args)
{
	return mcp_tools_context(c, validate_str(args, "libraryId"),
	    validate_str(args, "query"), 0);
}

/* ------------------------------------------------------------------ get-library-docs */

/* The arguments, from which tools/list would make the inputSchema (validate_schema). */
static const struct validate_field mcp_tools_legacy_fields[] = {
	{ .name = "context7CompatibleLibraryID", .type = VALIDATE_STRING, .required = 1,
	    .min = 1, .max = SEARCH_TEXT_MAX, .check = libid_check },
	{ .name = "topic", .type = VALIDATE_STRING, .min = 1, .max = SEARCH_TEXT_MAX },
	{ .name = "tokens", .type = VALIDATE_INT, .min = 1, .max = FORMAT_MAX_TOKENS },
	{ .name = NULL }
};
static const struct validate_table mcp_tools_legacy_args = {
	.fields = mcp_tools_legacy_fields,
	.allow_unknown = 1,
	.what = "argument"
};

static const struct mcp_alias mcp_tools_legacy_aliases[] = {
	{ "context7CompatibleLibraryID", "libraryId|libraryID" },
	{ "topic", "query|userQuery|question" },
	{ NULL, NULL }
};

/*
 * get-library-docs, the tool of older clients: topic is the question (without one,
 * "<repo> overview getting started"), tokens the budget.
 */
static json_object *
mcp_tools_legacy(struct mcp_ctx *c, json_object *args)
{
	const char	*libid = validate_str(args, "context7CompatibleLibraryID");
	const char	*topic = validate_str(args, "topic"), *repo;
	json_object	*res;
	struct buf	 q;

	if (topic != NULL)
		return mcp_tools_context(c, libid, topic,
		    validate_long(args, "tokens", 0));
	buf_init(&q);
	repo = strrchr(libid, '/');
	if (buf_printf(&q, "%s overview getting started",
	    repo != NULL && repo[1] != '\0' ? repo + 1 : libid) == -1) {
		log_err("%s: out of memory", __func__);
		res = NULL;
	} else
		res = mcp_tools_context(c, libid, q.p, validate_long(args, "tokens", 0));
	buf_release(&q);
	return res;
}

/* ------------------------------------------------------------------ the table */

const struct mcp_tool mcp_tools[] = {
	{ "resolve-library-id", "Resolve library ID", mcp_tools_resolve_text,
	    &mcp_tools_resolve_args, mcp_tools_resolve_aliases, 0, mcp_tools_resolve },
	{ "query-docs", "Query documentation", mcp_tools_docs_text,
	    &mcp_tools_docs_args, mcp_tools_docs_aliases, 0, mcp_tools_docs },
	/* Renamed query-docs upstream; still called by older clients, so not listed. */
	{ "get-library-docs", "Get library docs", "The former name of query-docs.",
	    &mcp_tools_legacy_args, mcp_tools_legacy_aliases, 1, mcp_tools_legacy },
	{ NULL, NULL, NULL, NULL, NULL, 0, NULL }
};
