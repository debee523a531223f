/* settings.c: the operator settings stored in the database (secrets sealed). */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json.h>

#include "ai/vendor.h"
#include "base/buf.h"
#include "base/cron.h"
#include "base/crypto.h"
#include "base/log.h"
#include "base/policy_value.h"
#include "base/util.h"
#include "net/fetch.h"
#include "store/conn.h"
#include "store/db.h"
#include "store/settings.h"
#include "store/stmt.h"

/* SET_SECRET is one token; SET_SECRET_TEXT may span lines (a PEM private key). */
enum setting_kind { SET_STRING, SET_SECRET, SET_BOOL, SET_NUMBER, SET_HOST, SET_ENUM, SET_URL,
	SET_SECRET_TEXT };

#define SETTINGS_VALUE_MAX	4096	/* longest value */
#define SETTINGS_TEXT_MAX	16384	/* longest SET_SECRET_TEXT value */

/*
 * The choices of an enum that are the AI vendor table's (ai/vendor.h: ai_vendor_choices),
 * so that a vendor added there is offered here: markers that settings_choices resolves.
 */
#define SETTINGS_AI_VENDORS		"\001ai"
#define SETTINGS_AI_EMBED_VENDORS	"\001embed"

struct setting_def {
	const char		*name;
	enum setting_kind	 kind;
	const char		*dflt;		/* shown by list; NULL: none */
	long			 min, max;	/* SET_NUMBER bounds */
	const char		*help;
	const char		*choices;	/* SET_ENUM: "a|b|c" */
};

static int	 settings_check_origins(const char *, char *, size_t);
static int	 settings_check_hostnames(const char *, char *, size_t);
static int	 settings_check_networks(const char *, char *, size_t);
static int	 settings_check_path(const char *, char *, size_t);
static int	 settings_check_branch(const char *, char *, size_t);
static int	 settings_check_web_template(const char *, char *, size_t);

static const struct setting_def settings_defs[] = {
	{ "git.github.token", SET_SECRET, NULL, 0, 0,
	  "personal access token for repositories on the GitHub-type host (the fallback "
	  "when a GitHub-type App is set up but gives no token)", NULL },
	{ "git.github.host", SET_HOST, "github.com", 0, 0,
	  "host[:port] of the GitHub-type platform", NULL },
	{ "git.gitlab.token", SET_SECRET, NULL, 0, 0,
	  "access token for repositories on the GitLab-type host", NULL },
	{ "git.gitlab.host", SET_HOST, "gitlab.com", 0, 0,
	  "host[:port] of the GitLab-type platform", NULL },
	{ "git.web_url_template", SET_STRING, "", 0, 0,
	  "web address of a file on a git host that is neither the GitHub-type nor the "
	  "GitLab-type one, with {repo} (the repository URL without .git), {commit} and "
	  "{path}, e.g. {repo}/src/commit/{commit}/{path} (blank: the repository URL and "
	  "the path)", NULL },
	{ "perm.anonymous_parse", SET_BOOL, "false", 0, 0,
	  "anyone who reaches the server may add a repository or source to index "
	  "(POST /api/parse, POST /api/libraries), without an API key or a session", NULL },
	{ "perm.anonymous_refresh", SET_BOOL, "false", 0, 0,
	  "anyone may re-index an existing library (which costs fetches and AI calls), "
	  "without an API key or a session", NULL },
	{ "perm.anonymous_delete", SET_BOOL, "false", 0, 0,
	  "anyone may delete a library with its snippets and embeddings, without an API "
	  "key or a session", NULL },
	{ "perm.anonymous_support_bundle", SET_BOOL, "false", 0, 0,
	  "anyone may download the support bundle (settings but never secrets, the "
	  "library list, recent job logs) without an API key or a session", NULL },
	{ "perm.require_mcp_auth", SET_BOOL, "false", 0, 0,
	  "on: /mcp and the /api/v2 search and context calls need a personal API key; "
	  "off (anonymous reads): anyone who reaches the server may query every library, "
	  "private repositories included",
	  NULL },
	{ "mcp.allowed_origins", SET_STRING, "", 0, 0,
	  "browser origins allowed on /mcp besides the server's own (comma-separated "
	  "scheme://host[:port] values, or *)", NULL },
	{ "limits.max_repo_mb", SET_NUMBER, "1024", 1, 1048576,
	  "largest repository (MB transferred) a clone or fetch may take", NULL },
	{ "limits.max_file_kb", SET_NUMBER, "2048", 1, 1048576,
	  "largest documentation file (KB) of a git repository that is parsed; larger "
	  "ones are skipped", NULL },
	{ "limits.max_files", SET_NUMBER, "20000", 1, 10000000,
	  "most documentation files one library may have", NULL },
	{ "sources.max_pages", SET_NUMBER, "1000", 1, 100000,
	  "most pages a website, llms.txt or wiki source fetches (a source's maxPages "
	  "above it is cut to it)", NULL },
	{ "sources.page_timeout_s", SET_NUMBER, "30", 1, 600,
	  "seconds one page, spec or wiki request may take, retries included", NULL },
	{ "sources.inflight", SET_NUMBER, "4", 1, 32,
	  "requests in flight to one host while a source is fetched", NULL },
	{ "sources.crawl_delay_ms", SET_NUMBER, "0", 0, 60000,
	  "pause between requests to one host (a robots.txt Crawl-delay raises it)", NULL },
	{ "sources.max_page_kb", SET_NUMBER, "4096", 1, 1048576,
	  "largest page or answer (KB) a source fetches; larger ones are skipped", NULL },
	{ "sources.max_spec_kb", SET_NUMBER, "16384", 1, 1048576,
	  "largest OpenAPI description (KB) a source fetches, and largest file of one "
	  "that it $refs", NULL },
	{ "sources.openapi_max_files", SET_NUMBER, "10000", 0, 1000000,
	  "most files an OpenAPI description's $refs may bring in besides the spec "
	  "(more are not fetched: their $refs stay names)", NULL },
	{ "sources.openapi_max_total_kb", SET_NUMBER, "65536", 1, 4194304,
	  "most KB of an OpenAPI description and the files it $refs together (past "
	  "it files are not fetched: their $refs stay names)", NULL },
	{ "uploads.max_mb_per_user", SET_NUMBER, "64", 1, 1048576,
	  "most MB of OpenAPI uploads kept for the libraries one user added (callers "
	  "without a user account count as one user; admins are exempt)", NULL },
	{ "limits.job_timeout_s", SET_NUMBER, "1800", 10, 86400,
	  "seconds one job may run before the worker stops it", NULL },
	{ "worker.concurrency", SET_NUMBER, "0", 0, 64,
	  "jobs ctxd-worker runs at once, each in its own process (0: the number of cores, "
	  "at least 2)", NULL },
	{ "ai.llm.provider", SET_ENUM, "", 0, 0,
	  "LLM vendor (empty: none, lexical retrieval only)", SETTINGS_AI_VENDORS },
	{ "ai.llm.api_key", SET_SECRET, NULL, 0, 0,
	  "key of the LLM provider (optional for bedrock with workload credentials)", NULL },
	{ "ai.llm.model", SET_STRING, "", 0, 0,
	  "LLM model name, or model / inference-profile id for bedrock", NULL },
	{ "ai.llm.region", SET_STRING, "", 0, 0,
	  "region of bedrock LLM requests, and of embedding requests unless ai.embed.region "
	  "is set", NULL },
	{ "ai.llm.base_url", SET_URL, "", 0, 0,
	  "endpoint of a custom OpenAI-compatible LLM, or bedrock's runtime endpoint", NULL },
	{ "ai.embed.provider", SET_ENUM, "same", 0, 0,
	  "embedding vendor: same (as the LLM provider) or one of the list",
	  SETTINGS_AI_EMBED_VENDORS },
	{ "ai.embed.api_key", SET_SECRET, NULL, 0, 0,
	  "key of the embedding provider (inherited from the LLM key only when both "
	  "use the same provider)", NULL },
	{ "ai.embed.model", SET_STRING, "", 0, 0, "embedding model name", NULL },
	{ "ai.embed.base_url", SET_URL, "", 0, 0,
	  "endpoint of a custom embedding service, or bedrock's runtime endpoint", NULL },
	{ "ai.embed.region", SET_STRING, "", 0, 0,
	  "region of bedrock embedding requests (empty: the LLM provider's region)", NULL },
	/* Admin API: integrations (lib/sources/ghapp.c), setup wizard. */
	{ "git.github.app_id", SET_NUMBER, NULL, 1, 1000000000000000L,
	  "GitHub-type App connection: App ID (the JWT's issuer; with the private key, "
	  "the App's installation tokens replace git.github.token)", NULL },
	{ "git.github.app_installation_id", SET_NUMBER, NULL, 1, 1000000000000000L,
	  "GitHub-type App connection: installation ID (blank: looked up for each "
	  "repository)", NULL },
	{ "git.github.app_private_key", SET_SECRET_TEXT, NULL, 0, 0,
	  "GitHub-type App connection: private key, PEM (RSA; signs the App's JWT)", NULL },
	{ "git.github.webhook_secret", SET_SECRET, NULL, 0, 0,
	  "GitHub-type App connection: webhook secret (checks X-Hub-Signature-256 of "
	  "POST /api/webhooks/github)", NULL },
	{ "git.github.api_url", SET_URL, "", 0, 0,
	  "REST API base of the GitHub-type host (blank: https://api.github.com for "
	  "github.com, https://HOST/api/v3 otherwise)", NULL },
	{ "wiki.site_url", SET_URL, "", 0, 0,
	  "wiki site of wiki sources: https://SITE for cloud, the base URL with its "
	  "context path (https://HOST/confluence) for datacenter", NULL },
	{ "wiki.kind", SET_ENUM, "", 0, 0,
	  "kind of the wiki site: cloud (REST v2, email + API token) or datacenter "
	  "(REST /rest/api, personal access token)", "cloud|datacenter" },
	{ "wiki.email", SET_STRING, "", 0, 0,
	  "account email sent with wiki.token (Basic auth) to a cloud wiki site", NULL },
	{ "wiki.token", SET_SECRET, NULL, 0, 0,
	  "wiki credential: the API token of wiki.email (cloud) or a personal access "
	  "token (datacenter, sent as Bearer); only ever sent to wiki.site_url", NULL },
	{ "setup.ai_provider", SET_ENUM, "pending", 0, 0,
	  "setup wizard step 1 (AI provider): pending, done or skipped",
	  "pending|done|skipped" },
	{ "setup.embedding", SET_ENUM, "pending", 0, 0,
	  "setup wizard step 2 (embedding provider): pending, done or skipped",
	  "pending|done|skipped" },
	{ "setup.git_tokens", SET_ENUM, "pending", 0, 0,
	  "setup wizard step 3 (git tokens): pending, done or skipped",
	  "pending|done|skipped" },
	{ "setup.who_can_read", SET_ENUM, "pending", 0, 0,
	  "setup wizard step 4 (who can read: perm.require_mcp_auth): pending, done or "
	  "skipped", "pending|done|skipped" },
	{ "server.hostnames", SET_STRING, "", 0, 0,
	  "names this server answers to besides IP addresses, localhost and the "
	  "machine's host name (comma-separated host[:port]); other Host headers get 421",
	  NULL },
	/* Outbound connections (lib/net/fetch.h, fetch_policy_allow). */
	{ FETCH_POLICY_SETTING, SET_STRING, FETCH_POLICY_DEFAULT, 0, 0,
	  "networks besides public addresses that the server may connect to (sources, "
	  "git, AI providers), for every user who adds a source: comma-separated "
	  "ADDRESS/BITS (empty: public addresses only; private ranges such as 10.0.0.0/8, "
	  "loopback and link-local only when listed, a cloud metadata address only listed "
	  "alone)", NULL },
	{ "perm.members_use_integrations", SET_BOOL, "false", 0, 0,
	  "members, not only admins, may add sources read with the instance's "
	  "credentials (wiki sources, repositories on a host with a git token or the "
	  "GitHub App), so they can index whatever those credentials can read", NULL },
	{ "git.plain_http_hosts", SET_STRING, "", 0, 0,
	  "hosts (host or host:port, comma-separated) that may receive a git token over "
	  "plain http", NULL },
	{ "git.connect_timeout_s", SET_NUMBER, "30", 1, 600,
	  "seconds a clone or fetch may take to connect to one address of the git server",
	  NULL },
	{ "git.stall_timeout_s", SET_NUMBER, "60", 1, 3600,
	  "seconds a clone or fetch may wait on a git server that sends nothing (or less "
	  "than 16 bytes a second) before its job fails", NULL },
	{ "jobs.max_queued_per_user", SET_NUMBER, "50", 1, 100000,
	  "most index jobs one user (or all anonymous callers together) may have queued; "
	  "admins, GitOps and webhooks are not counted", NULL },
	{ "content.injection", SET_ENUM, "hold", 0, 0,
	  "snippets flagged as addressed to AI agents (ctxd-content(7)): hold leaves them "
	  "out of answers, mark answers them after a warning line, off ignores the flags",
	  "hold|mark|off" },
	/* Upstream of public libraries (lib/search/upstream.h). */
	{ "upstream.url", SET_URL, "", 0, 0,
	  "API base of a Context7-compatible upstream answering for libraries not held "
	  "here (e.g. https://HOST/api; empty: none, nothing leaves the instance)", NULL },
	{ "upstream.api_key", SET_SECRET, NULL, 0, 0,
	  "API key sent as a Bearer token to upstream.url only (optional)", NULL },
	{ "upstream.timeout_s", SET_NUMBER, "10", 1, 120,
	  "seconds one upstream request may take", NULL },
	{ "upstream.cache_ttl_s", SET_NUMBER, "3600", 0, 2592000,
	  "seconds an upstream context answer is served from the cache (DATA_DIR/"
	  "upstream-cache) without asking the upstream; at any age when it is down; "
	  "0: no cache", NULL },
	{ "upstream.cache_mb", SET_NUMBER, "64", 1, 65536,
	  "largest size (MB) of the upstream answer cache; the oldest answers go first",
	  NULL },
	/* GitOps (lib/gitops/gitops.h, ctxd-manifest(5)). */
	{ "gitops.enabled", SET_BOOL, "false", 0, 0,
	  "GitOps sync at start, on the schedule and on push (off: Sync now and the "
	  "reconcile endpoint still work)", NULL },
	{ "gitops.repo_url", SET_URL, "", 0, 0,
	  "git repository (http or https) holding the GitOps manifest; its host's token or "
	  "GitHub App is used to read it", NULL },
	{ "gitops.manifest_path", SET_STRING, "repos.yaml", 0, 0,
	  "path of the manifest inside the GitOps repository", NULL },
	{ "gitops.branch", SET_STRING, "", 0, 0,
	  "branch of the GitOps repository to read (empty: its default branch)", NULL },
	{ "gitops.schedule", SET_STRING, "manual", 0, 0,
	  "GitOps sync schedule in the server's time zone: hourly, every 6 hours, daily, "
	  "weekly, a five-field cron expression, or manual (Manual only)", NULL },
	{ "gitops.prune", SET_BOOL, "false", 0, 0,
	  "delete GitOps-managed libraries that left the manifest, with their snippets, "
	  "embeddings and clones (libraries added by hand are never deleted)", NULL },
	/* Policies for public documentation of the upstream (lib/sources/policy.h). */
	{ "policy.git", SET_BOOL, "true", 0, 0,
	  "answer for the upstream's libraries from git repositories", NULL },
	{ "policy.website", SET_BOOL, "true", 0, 0,
	  "answer for the upstream's libraries crawled from websites", NULL },
	{ "policy.llmstxt", SET_BOOL, "true", 0, 0,
	  "answer for the upstream's libraries from llms.txt files", NULL },
	{ "policy.openapi", SET_BOOL, "true", 0, 0,
	  "answer for the upstream's libraries from OpenAPI specifications", NULL },
	{ "policy.other", SET_BOOL, "true", 0, 0,
	  "answer for the upstream's libraries of any other or unreported source type", NULL },
	{ "policy.allow", SET_STRING, "", 0, 0,
	  "upstream library ids allowed, comma-separated globs such as /vercel/* (empty: "
	  "all)", NULL },
	{ "policy.block", SET_STRING, "", 0, 0,
	  "upstream library ids refused, comma-separated globs; the block list wins over "
	  "the allow list", NULL },
	{ "policy.min_trust", SET_STRING, "", 0, 0,
	  "lowest trust score (0 to 100) of an upstream library that reports one (empty: "
	  "none)", NULL },
};

/*
 * What the web UI calls a setting (GET /api/settings: "label"), shown with its help text
 * and its name; every setting has a row (t0400 checks it through GET /api/settings).
 */
static const struct {
	const char	*name, *label;
} settings_labels[] = {
	{ "ai.llm.provider", "LLM provider" },
	{ "ai.llm.api_key", "LLM API key" },
	{ "ai.llm.model", "LLM model" },
	{ "ai.llm.region", "Region" },
	{ "ai.llm.base_url", "Base URL" },
	{ "ai.embed.provider", "Embedding provider" },
	{ "ai.embed.api_key", "Embedding API key" },
	{ "ai.embed.model", "Embedding model" },
	{ "ai.embed.base_url", "Embedding base URL" },
	{ "ai.embed.region", "Embedding region" },
	{ "git.github.token", "GitHub token" },
	{ "git.github.host", "GitHub host" },
	{ "git.gitlab.token", "GitLab token" },
	{ "git.gitlab.host", "GitLab host" },
	{ "git.github.app_id", "GitHub App ID" },
	{ "git.github.app_installation_id", "GitHub App installation ID" },
	{ "git.github.app_private_key", "GitHub App private key (PEM)" },
	{ "git.github.webhook_secret", "GitHub App webhook secret" },
	{ "git.github.api_url", "GitHub API URL" },
	{ "git.web_url_template", "Web address of a file on another git host" },
	{ "wiki.site_url", "Wiki site URL" },
	{ "wiki.kind", "Wiki kind" },
	{ "wiki.email", "Wiki account email" },
	{ "wiki.token", "Wiki API token" },
	{ "upstream.url", "Upstream API base URL" },
	{ "upstream.api_key", "Upstream API key" },
	{ "upstream.timeout_s", "Upstream timeout (seconds)" },
	{ "upstream.cache_ttl_s", "Answer cache lifetime (seconds)" },
	{ "upstream.cache_mb", "Answer cache size (MB)" },
	{ "perm.anonymous_parse", "Allow anonymous parse" },
	{ "perm.anonymous_refresh", "Allow anonymous refresh" },
	{ "perm.anonymous_delete", "Allow anonymous delete" },
	{ "perm.anonymous_support_bundle", "Allow anonymous support bundle" },
	{ "perm.members_use_integrations", "Allow members to use integrations" },
	{ "perm.require_mcp_auth", "Require MCP authentication" },
	{ "gitops.enabled", "Enable GitOps sync" },
	{ "gitops.repo_url", "Manifest repository URL" },
	{ "gitops.manifest_path", "Manifest path" },
	{ "gitops.branch", "Branch" },
	{ "gitops.schedule", "Sync schedule" },
	{ "gitops.prune", "Prune removed repositories" },
	{ "policy.git", "Git repositories" },
	{ "policy.website", "Websites" },
	{ "policy.llmstxt", "llms.txt" },
	{ "policy.openapi", "OpenAPI" },
	{ "policy.other", "Other source types" },
	{ "policy.allow", "Allow list" },
	{ "policy.block", "Block list" },
	{ "policy.min_trust", "Minimum trust score" },
	{ "uploads.max_mb_per_user", "Uploads kept per user (MB)" },
	{ "jobs.max_queued_per_user", "Queued jobs per user" },
	{ "git.connect_timeout_s", "Git connect time limit (seconds)" },
	{ "git.stall_timeout_s", "Git stall time limit (seconds)" },
	{ "setup.ai_provider", "Setup step: AI provider" },
	{ "setup.embedding", "Setup step: embedding provider" },
	{ "setup.git_tokens", "Setup step: git tokens" },
	{ "setup.who_can_read", "Setup step: who can read" },
	{ "server.hostnames", "Server names" },
	{ FETCH_POLICY_SETTING, "Networks the server may reach" },
	{ "git.plain_http_hosts", "Hosts that may get a git token over plain http" },
	{ "mcp.allowed_origins", "Browser origins allowed on /mcp" },
	{ "content.injection", "Snippets addressed to AI agents" },
	{ "limits.max_repo_mb", "Largest repository (MB)" },
	{ "limits.max_file_kb", "Largest documentation file (KB)" },
	{ "limits.max_files", "Most files of a library" },
	{ "limits.job_timeout_s", "Job time limit (seconds)" },
	{ "worker.concurrency", "Jobs run at once" },
	{ "sources.max_pages", "Most pages of a source" },
	{ "sources.page_timeout_s", "Page time limit (seconds)" },
	{ "sources.inflight", "Requests in flight to one host" },
	{ "sources.crawl_delay_ms", "Pause between requests (ms)" },
	{ "sources.max_page_kb", "Largest page (KB)" },
	{ "sources.max_spec_kb", "Largest OpenAPI description (KB)" },
	{ "sources.openapi_max_files", "Most files of an OpenAPI description" },
	{ "sources.openapi_max_total_kb", "Largest OpenAPI description with its files (KB)" },
};

/* The label of setting name, or NULL. */
static const char *
settings_label(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(settings_labels) / sizeof(settings_labels[0]); i++)
		if (strcmp(settings_labels[i].name, name) == 0)
			return settings_labels[i].label;
	return NULL;
}

/* Further rules of some SET_STRING settings: 0, or -1 with the reason in err. */
static const struct {
	const char	*name;
	int		(*check)(const char *value, char *err, size_t errsz);
} settings_checks[] = {
	{ "mcp.allowed_origins", settings_check_origins },
	{ "server.hostnames", settings_check_hostnames },
	{ FETCH_POLICY_SETTING, settings_check_networks },
	{ "git.plain_http_hosts", settings_check_hostnames },
	{ "gitops.schedule", cron_check },
	{ "gitops.manifest_path", settings_check_path },
	{ "gitops.branch", settings_check_branch },
	{ "git.web_url_template", settings_check_web_template },
	{ "policy.allow", policy_check_globs },
	{ "policy.block", policy_check_globs },
	{ "policy.min_trust", policy_check_trust },
};

#define SETTINGS_N	(sizeof(settings_defs) / sizeof(settings_defs[0]))

/* The "a|b|c" choices of d, NULL when it is not an enum. */
static const char *
settings_choices(const struct setting_def *d)
{
	if (d->choices != NULL && strcmp(d->choices, SETTINGS_AI_VENDORS) == 0)
		return ai_vendor_choices(0);
	if (d->choices != NULL && strcmp(d->choices, SETTINGS_AI_EMBED_VENDORS) == 0)
		return ai_vendor_choices(1);
	return d->choices;
}

static int
settings_secret_kind(enum setting_kind k)
{
	return k == SET_SECRET || k == SET_SECRET_TEXT;
}

int
settings_describe(size_t i, struct settings_desc *out)
{
	static const char *const kinds[] = { "string", "secret", "bool", "number",
	    "host", "enum", "url", "secret" };
	const struct setting_def *d;

	if (i >= SETTINGS_N)
		return -1;
	d = &settings_defs[i];
	out->name = d->name;
	out->kind = kinds[d->kind];
	out->secret = settings_secret_kind(d->kind);
	out->dflt = d->dflt;
	out->min = d->min;
	out->max = d->max;
	out->help = d->help;
	out->choices = settings_choices(d);
	return 0;
}

static const struct setting_def *
settings_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < SETTINGS_N; i++)
		if (strcmp(settings_defs[i].name, name) == 0)
			return &settings_defs[i];
	return NULL;
}

int
settings_is_secret(const char *name)
{
	const struct setting_def *d = settings_find(name);

	return d == NULL ? -1 : settings_secret_kind(d->kind);
}

/*
 * The settings rows a listening connection keeps between requests (db_listen: a query or
 * MCP worker on PostgreSQL), read whole by one statement and dropped when a change of the
 * settings table is announced (db_drain_changes). At most SETTINGS_CACHE_MAX rows: a
 * table holding more (rows of names no longer defined) is read row by row, as uncached.
 */
#define SETTINGS_CACHE_MAX	512
static struct {
	struct db	*db;		/* the connection it was read on; NULL: empty */
	unsigned long	 gen;		/* db_cache_gen of DB_CACHE_SETTINGS then */
	int		 too_many;	/* at gen, more rows than it keeps: none kept */
	size_t		 n;
	char		*name[SETTINGS_CACHE_MAX], *value[SETTINGS_CACHE_MAX];
} settings_cache;

static void
settings_cache_drop(void)
{
	size_t	 i;

	for (i = 0; i < settings_cache.n; i++) {
		free(settings_cache.name[i]);
		free(settings_cache.value[i]);
	}
	settings_cache.n = 0;
	settings_cache.db = NULL;
	settings_cache.too_many = 0;
}

/* Fills the cache from db: 0, or -1 (too many rows, an error: not cached). */
static int
settings_cache_fill(struct db *db)
{
	struct db_stmt	*st;
	int		 s;

	settings_cache_drop();
	if (db_prepare(db, "SELECT name, value FROM settings", &st) == -1)
		return -1;
	while ((s = db_step(st)) == DB_ROW && settings_cache.n < SETTINGS_CACHE_MAX) {
		size_t	 i = settings_cache.n;
		char	*name, *value = NULL;

		name = strdup(db_col_text(st, 0));
		if (!db_col_null(st, 1))
			value = strdup(db_col_text(st, 1));
		if (name == NULL || (value == NULL && !db_col_null(st, 1))) {
			free(name);
			free(value);
			s = -1;
			break;
		}
		settings_cache.name[i] = name;
		settings_cache.value[i] = value;
		settings_cache.n++;
	}
	db_finalize(st);
	if (s != DB_DONE) {
		settings_cache_drop();
		/* too many rows: read row by row until the table changes */
		if (s == DB_ROW) {
			settings_cache.db = db;
			settings_cache.gen = db_cache_gen(db, DB_CACHE_SETTINGS);
			settings_cache.too_many = 1;
		}
		return -1;
	}
	settings_cache.db = db;
	settings_cache.gen = db_cache_gen(db, DB_CACHE_SETTINGS);
	return 0;
}

/*
 * From the cache of a listening connection: 1 with *v the stored value (malloc'd, NULL
 * when not stored), 0 when the connection keeps no cache (read the row), -1 out of memory.
 */
static int
settings_cached(struct db *db, const char *name, char **v)
{
	size_t	 i;

	*v = NULL;
	if (!db->listening)
		return 0;
	if ((settings_cache.db != db ||
	    !db_cache_valid(db, DB_CACHE_SETTINGS, settings_cache.gen)) &&
	    settings_cache_fill(db) == -1)
		return 0;
	if (settings_cache.too_many)
		return 0;
	for (i = 0; i < settings_cache.n; i++)
		if (strcmp(settings_cache.name[i], name) == 0) {
			if (settings_cache.value[i] != NULL &&
			    (*v = strdup(settings_cache.value[i])) == NULL)
				return -1;
			break;
		}
	return 1;
}

/* Stored value (sealed for secrets) or NULL. */
static char *
settings_raw(struct db *db, const char *name)
{
	struct db_stmt	*st;
	char		*v = NULL;
	int		 s;

	if (settings_cached(db, name, &v) != 0)
		return v;
	if (db_prepare(db, "SELECT value FROM settings WHERE name = ?1", &st) == -1) {
		log_err("%s: %s", __func__, db_conn_errmsg(db));
		return NULL;
	}
	db_bind_text(st, 1, name);
	if ((s = db_step(st)) == DB_ROW && !db_col_null(st, 0))
		v = strdup(db_col_text(st, 0));
	else if (s == -1)
		log_err("%s: %s", __func__, db_conn_errmsg(db));
	db_finalize(st);
	return v;
}

char *
settings_get(struct db *db, const char *datadir, const char *name)
{
	const struct setting_def *d = settings_find(name);
	unsigned char	 key[CRYPTO_KEYLEN];
	char		*raw, *plain;

	if (d == NULL)
		return NULL;
	if ((raw = settings_raw(db, name)) == NULL)
		return d->dflt != NULL ? strdup(d->dflt) : NULL;
	if (!settings_secret_kind(d->kind))
		return raw;
	plain = NULL;
	if (crypto_secret_load(datadir, key) == 0) {
		plain = crypto_open(key, raw);
		if (plain == NULL)
			log_err("%s: setting %s cannot be decrypted with "
			    "secret.key", __func__, name);
	}
	explicit_bzero(key, sizeof(key));
	free(raw);
	return plain;
}

char *
settings_stored(struct db *db, const char *name)
{
	return settings_raw(db, name);
}

int
settings_get_bool(struct db *db, const char *name, int dflt)
{
	char	*v = settings_raw(db, name);
	int	 r = dflt;

	if (v != NULL)
		r = strcmp(v, "true") == 0;
	free(v);
	return r;
}

long
settings_get_long(struct db *db, const char *datadir, const char *name, long dflt)
{
	char	*v = settings_get(db, datadir, name);
	long	 n = dflt;

	if (v == NULL || util_parse_long(v, 1, 1L << 40, &n) == -1)
		n = dflt;
	free(v);
	return n;
}

int
settings_is_set(struct db *db, const char *name)
{
	char	*v = settings_raw(db, name);
	int	 set = v != NULL;

	free(v);
	return set;
}

/*
 * Checks each entry of a comma- or blank-separated list value with ok (entry, its
 * length): 0, or -1 with "entry '...' <what>" in err.
 */
static int
settings_check_list(const char *v, int (*ok)(const char *, size_t), const char *what,
    char *err, size_t errsz)
{
	const char	*p, *e;

	for (p = v; *p != '\0'; p = e) {
		p += strspn(p, ", \t");
		e = p + strcspn(p, ", \t");
		if (e > p && !ok(p, (size_t)(e - p))) {
			snprintf(err, errsz, "entry '%.*s' %s", (int)((e - p) > 100 ? 100 :
			    (e - p)), p, what);
			return -1;
		}
	}
	return 0;
}

/* 1 when [p, p+n) is host[:port] (a DNS name, an IPv4 address or a bracketed IPv6 one). */
static int
settings_hostport(const char *p, size_t n)
{
	char	 name[256], port[8];
	long	 x;

	if (util_host_split(p, n, name, sizeof(name), port, sizeof(port)) == -1)
		return 0;
	return *port == '\0' || (util_parse_long(port, 1, 65535, &x) == 0);
}

/* 1 when [p, p+n) is "*" or an origin: http or https "://" host[:port], nothing more. */
static int
settings_origin(const char *p, size_t n)
{
	size_t	 k;

	if (n == 1 && *p == '*')
		return 1;
	if (n > 7 && strncasecmp(p, "http://", 7) == 0)
		k = 7;
	else if (n > 8 && strncasecmp(p, "https://", 8) == 0)
		k = 8;
	else
		return 0;
	return settings_hostport(p + k, n - k);
}

static int
settings_check_origins(const char *v, char *err, size_t errsz)
{
	return settings_check_list(v, settings_origin, "must be * or an origin, "
	    "http(s)://host[:port] without a path", err, errsz);
}

static int
settings_check_hostnames(const char *v, char *err, size_t errsz)
{
	return settings_check_list(v, settings_hostport, "must be a host name or address "
	    "with an optional :port", err, errsz);
}

/* gitops.manifest_path: a relative path inside the repository, no "..", no controls. */
static int
settings_check_path(const char *v, char *err, size_t errsz)
{
	const unsigned char *p;

	if (*v == '\0' || *v == '/' || strstr(v, "..") != NULL || strlen(v) > 1024)
		goto bad;
	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f || *p == '\\')
			goto bad;
	return 0;
bad:
	snprintf(err, errsz, "must be a relative path inside the repository (no '..')");
	return -1;
}

/* gitops.branch: empty (the default branch) or a plausible git branch name. */
static int
settings_check_branch(const char *v, char *err, size_t errsz)
{
	const unsigned char *p;

	if (strlen(v) > 255 || *v == '-' || strstr(v, "..") != NULL)
		goto bad;
	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p <= 0x20 || *p == 0x7f || strchr("~^:?*[\\", *p) != NULL)
			goto bad;
	return 0;
bad:
	snprintf(err, errsz, "must be a git branch name (or empty: the default branch)");
	return -1;
}

/* A web address pattern: blank, or http(s):// or {repo} first, {path} in it, no blanks. */
static int
settings_check_web_template(const char *v, char *err, size_t errsz)
{
	const unsigned char *p;

	if (*v == '\0')
		return 0;
	if (strlen(v) > 1024 || strstr(v, "{path}") == NULL ||
	    (strncmp(v, "https://", 8) != 0 && strncmp(v, "http://", 7) != 0 &&
	    strncmp(v, "{repo}", 6) != 0))
		goto bad;
	for (p = (const unsigned char *)v; *p != '\0'; p++)
		if (*p <= 0x20 || *p == 0x7f)
			goto bad;
	return 0;
bad:
	snprintf(err, errsz, "must be an http(s) address or start with {repo}, hold {path} "
	    "and no blanks (empty: the repository URL and the path)");
	return -1;
}

/*
 * The userinfo of url ("user:secret" of scheme://user:secret@host/...): its offset in
 * *off and length in *len, or -1 when it has none. Any "@" before the first "/", "?" or
 * "#" of the authority counts, the last one ending the userinfo.
 */
static int
settings_url_userinfo(const char *url, size_t *off, size_t *len)
{
	const char	*a = strstr(url, "://"), *end, *at = NULL, *p;

	if (a == NULL)
		return -1;
	a += 3;
	end = a + strcspn(a, "/?#");
	for (p = a; p < end; p++)
		if (*p == '@')
			at = p;
	if (at == NULL)
		return -1;
	*off = (size_t)(a - url);
	*len = (size_t)(at - a);
	return 0;
}

int
settings_url_has_credentials(const char *url)
{
	size_t	 off, len;

	return url != NULL && settings_url_userinfo(url, &off, &len) == 0;
}

char *
settings_url_redacted(const char *url)
{
	struct buf	 b;
	size_t		 off, len;

	if (settings_url_userinfo(url, &off, &len) == -1)
		return strdup(url);
	buf_init(&b);
	if (buf_printf(&b, "%.*s[redacted]%s", (int)off, url, url + off + len) == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

static int
settings_valid_host(const char *v)
{
	size_t	 i;

	if (*v == '\0' || strlen(v) > 253)
		return 0;
	for (i = 0; v[i] != '\0'; i++)
		if (!((v[i] >= 'a' && v[i] <= 'z') || (v[i] >= '0' && v[i] <= '9') ||
		    v[i] == '.' || v[i] == '-' || v[i] == ':' ||
		    v[i] == '[' || v[i] == ']'))
			return 0;
	return 1;
}

/* 1 when value is one of the "a|b|c" choices, or empty where empty is the default. */
static int
settings_valid_choice(const char *choices, const char *value)
{
	const char	*p = choices, *bar;
	size_t		 n = strlen(value);

	if (n == 0)
		return 0;
	for (;;) {
		bar = strchr(p, '|');
		if ((size_t)((bar ? bar : p + strlen(p)) - p) == n &&
		    strncmp(p, value, n) == 0)
			return 1;
		if (bar == NULL)
			return 0;
		p = bar + 1;
	}
}

/* fetch.allowed_networks: a list fetch_policy_parse accepts. */
static int
settings_check_networks(const char *v, char *err, size_t errsz)
{
	struct fetch_policy	 p;

	if (fetch_policy_parse(v, &p, err, errsz) == -1)
		return -1;
	fetch_policy_release(&p);
	return 0;
}

int
settings_set(struct db *db, const char *datadir, const char *name, const char *value,
    char *err, size_t errsz)
{
	const struct setting_def *d = settings_find(name);
	unsigned char	 key[CRYPTO_KEYLEN];
	struct db_stmt	*st = NULL;
	char		*stored = NULL, now[32];
	const char	*v = value;
	char		 e[256];
	long		 n;
	int		 rc = -1;

	if (d == NULL) {
		snprintf(err, errsz, "unknown setting '%s'", name);
		return -1;
	}
	if (strlen(value) > (d->kind == SET_SECRET_TEXT ? SETTINGS_TEXT_MAX :
	    SETTINGS_VALUE_MAX)) {
		snprintf(err, errsz, "value of %s is longer than %d bytes", name,
		    d->kind == SET_SECRET_TEXT ? SETTINGS_TEXT_MAX :
		    SETTINGS_VALUE_MAX);
		return -1;
	}
	switch (d->kind) {
	case SET_BOOL:
		if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
			snprintf(err, errsz, "%s must be true or false", name);
			return -1;
		}
		break;
	case SET_NUMBER:
		if (util_parse_long(value, d->min, d->max, &n) == -1) {
			snprintf(err, errsz, "%s must be a whole number from "
			    "%ld to %ld", name, d->min, d->max);
			return -1;
		}
		break;
	case SET_HOST:
		if (!settings_valid_host(value)) {
			snprintf(err, errsz, "%s must be a lowercase host name "
			    "with an optional :port", name);
			return -1;
		}
		break;
	case SET_SECRET:
	case SET_SECRET_TEXT:
		if (*value == '\0' || (d->kind == SET_SECRET &&
		    strpbrk(value, " \t\r\n") != NULL)) {
			snprintf(err, errsz, d->kind == SET_SECRET ? "%s must be a "
			    "non-empty token without spaces" : "%s must not be "
			    "empty", name);
			return -1;
		}
		if (crypto_secret_load(datadir, key) == -1) {
			snprintf(err, errsz, "cannot read the secret key in %s: "
			    "run ctxd-admin init", datadir);
			return -1;
		}
		stored = crypto_seal(key, value);
		explicit_bzero(key, sizeof(key));
		if (stored == NULL) {
			snprintf(err, errsz, "cannot encrypt %s", name);
			return -1;
		}
		v = stored;
		break;
	case SET_ENUM:
		if (!settings_valid_choice(settings_choices(d), value)) {
			snprintf(err, errsz, "%s must be one of %s%s", name,
			    settings_choices(d), d->dflt != NULL && *d->dflt == '\0' ?
			    " (unset it for none)" : "");
			return -1;
		}
		break;
	case SET_URL:
		if (*value != '\0' && strncmp(value, "https://", 8) != 0 &&
		    strncmp(value, "http://", 7) != 0) {
			snprintf(err, errsz, "%s must be an http or https URL", name);
			return -1;
		}
		if (settings_url_has_credentials(value)) {
			snprintf(err, errsz, "%s must not carry credentials (user:secret@ "
			    "before the host): store tokens in their settings instead "
			    "(ctxd-admin(8))", name);
			return -1;
		}
		/* fall through */
	case SET_STRING:
		if (strpbrk(value, "\r\n") != NULL) {
			snprintf(err, errsz, "%s must be one line", name);
			return -1;
		}
		for (n = 0; n < (long)(sizeof(settings_checks) /
		    sizeof(settings_checks[0])); n++)
			if (strcmp(settings_checks[n].name, name) == 0 &&
			    settings_checks[n].check(value, e, sizeof(e)) == -1) {
				snprintf(err, errsz, "%s: %s", name, e);
				return -1;
			}
		break;
	}
	util_iso8601(time(NULL), now, sizeof(now));
	if (db_prepare(db, "INSERT INTO settings (name, value, updated_at) "
	    "VALUES (?1, ?2, ?3) ON CONFLICT (name) DO UPDATE SET "
	    "value = excluded.value, updated_at = excluded.updated_at", &st) == -1)
		goto dberr;
	db_bind_text(st, 1, name);
	db_bind_text(st, 2, v);
	db_bind_text(st, 3, now);
	if (db_step(st) != DB_DONE)
		goto dberr;
	rc = 0;
	goto out;
dberr:
	snprintf(err, errsz, "database error: %s", db_conn_errmsg(db));
	rc = -2;
out:
	db_finalize(st);
	free(stored);
	return rc;
}

int
settings_unset(struct db *db, const char *name)
{
	if (settings_find(name) == NULL)
		return -1;
	return db_stmt_run(db, "DELETE FROM settings WHERE name = ?1", "t", name);
}

int
settings_list(struct db *db, FILE *f)
{
	size_t	 i;
	char	*raw, *shown;

	for (i = 0; i < SETTINGS_N; i++) {
		const struct setting_def *d = &settings_defs[i];

		raw = settings_raw(db, d->name);
		if (settings_secret_kind(d->kind))
			fprintf(f, "%s = %s\t# %s\n", d->name,
			    raw ? "(set)" : "(unset)", d->help);
		else {
			shown = raw != NULL && d->kind == SET_URL ?
			    settings_url_redacted(raw) : NULL;
			fprintf(f, "%s = %s%s\t# %s\n", d->name,
			    shown ? shown : raw ? raw : (d->dflt ? d->dflt : ""),
			    raw ? "" : " (default)", d->help);
			free(shown);
		}
		free(raw);
	}
	return 0;
}

/* ------------------------------------------------------------------ settings as JSON */

/* A stored value v of setting d as JSON: a bool, a whole number or a string. */
static json_object *
settings_typed(const struct settings_desc *d, const char *v)
{
	long	 n;

	if (v == NULL)
		return NULL;
	if (strcmp(d->kind, "bool") == 0)
		return json_object_new_boolean(strcmp(v, "true") == 0);
	if (strcmp(d->kind, "number") == 0 &&
	    util_parse_long(v, LONG_MIN, LONG_MAX, &n) == 0)
		return json_object_new_int64(n);
	return json_object_new_string(v);
}

/* One setting as the admin API shows it: a secret says only whether it is set. */
/*
 * For the choices of an AI vendor setting: "choiceLabels" {name: label} and "choiceTakes"
 * {name: [the settings a form offers for it: "api_key", "region", "base_url"]}, from the
 * vendor table, so that the web UI knows no vendor by name.
 */
static void
settings_vendor_info(json_object *o, const char *choices)
{
	const struct ai_vendor *v;
	json_object	*labels, *takes, *t;
	size_t		 i;

	if (strcmp(choices, ai_vendor_choices(0)) != 0 &&
	    strcmp(choices, ai_vendor_choices(1)) != 0)
		return;
	labels = json_object_new_object();
	takes = json_object_new_object();
	for (i = 0; (v = ai_vendor_at(i)) != NULL; i++) {
		json_object_object_add(labels, v->name, json_object_new_string(v->label));
		t = json_object_new_array();
		if (v->takes & AI_NEEDS_KEY)
			json_object_array_add(t, json_object_new_string("api_key"));
		if (v->takes & AI_NEEDS_REGION)
			json_object_array_add(t, json_object_new_string("region"));
		if (v->takes & AI_NEEDS_BASE_URL)
			json_object_array_add(t, json_object_new_string("base_url"));
		json_object_object_add(takes, v->name, t);
	}
	json_object_object_add(o, "choiceLabels", labels);
	json_object_object_add(o, "choiceTakes", takes);
}

static json_object *
settings_one_json(struct db *db, const char *datadir, const struct settings_desc *d)
{
	json_object	*o = json_object_new_object(), *a;
	const char	*p, *bar;
	char		*v, *stored;

	json_object_object_add(o, "type", json_object_new_string(d->kind));
	json_object_object_add(o, "help", json_object_new_string(d->help));
	if (settings_label(d->name) != NULL)
		json_object_object_add(o, "label",
		    json_object_new_string(settings_label(d->name)));
	if (d->secret) {
		json_object_object_add(o, "secret", json_object_new_boolean(1));
		json_object_object_add(o, "set",
		    json_object_new_boolean(settings_is_set(db, d->name)));
		return o;
	}
	v = settings_get(db, datadir, d->name);
	if (v != NULL && strcmp(d->kind, "url") == 0 && settings_url_has_credentials(v)) {
		/* A value stored before URL settings refused credentials. */
		stored = v;
		v = settings_url_redacted(stored);
		free(stored);
	}
	json_object_object_add(o, "value", settings_typed(d, v));
	free(v);
	json_object_object_add(o, "default", settings_typed(d, d->dflt));
	json_object_object_add(o, "isDefault",
	    json_object_new_boolean(!settings_is_set(db, d->name)));
	if (d->choices != NULL) {
		a = json_object_new_array();
		for (p = d->choices; ; p = bar + 1) {
			bar = strchr(p, '|');
			json_object_array_add(a, json_object_new_string_len(p,
			    bar != NULL ? (int)(bar - p) : (int)strlen(p)));
			if (bar == NULL)
				break;
		}
		json_object_object_add(o, "choices", a);
		settings_vendor_info(o, d->choices);
	}
	if (strcmp(d->kind, "number") == 0) {
		json_object_object_add(o, "min", json_object_new_int64(d->min));
		json_object_object_add(o, "max", json_object_new_int64(d->max));
	}
	return o;
}

json_object *
settings_json(struct db *db, const char *datadir, const char *const *names)
{
	struct settings_desc d;
	json_object	*o = json_object_new_object();
	size_t		 i;

	for (i = 0; settings_describe(i, &d) == 0; i++)
		if (names == NULL || util_str_in(names, d.name))
			json_object_object_add(o, d.name, settings_one_json(db, datadir,
			    &d));
	return o;
}

/*
 * The text form of JSON value val for setting d (in num when it is a number), or NULL for
 * a reset (null); -1 with err when val has the wrong type.
 */
static int
settings_value_text(const struct settings_desc *d, json_object *val, char *num,
    size_t numsz, const char **out, char *err, size_t errsz)
{
	*out = NULL;
	switch (json_object_get_type(val)) {
	case json_type_null:
		return 0;
	case json_type_string:
		*out = json_object_get_string(val);
		return 0;
	case json_type_boolean:
		if (strcmp(d->kind, "bool") == 0) {
			*out = json_object_get_boolean(val) ? "true" : "false";
			return 0;
		}
		snprintf(err, errsz, "'%s' must be a string", d->name);
		return -1;
	case json_type_int:
		if (strcmp(d->kind, "number") == 0) {
			snprintf(num, numsz, "%lld", (long long)json_object_get_int64(val));
			*out = num;
			return 0;
		}
		/* FALLTHROUGH */
	default:
		snprintf(err, errsz, "'%s' must be a string%s or null", d->name,
		    strcmp(d->kind, "bool") == 0 ? ", true, false" :
		    strcmp(d->kind, "number") == 0 ? ", a whole number" : "");
		return -1;
	}
}

enum settings_apply_result
settings_apply_json(struct db *db, const char *datadir, json_object *o,
    const char *const *allowed, char *err, size_t errsz)
{
	struct settings_desc d;
	const char	*v;
	char		 num[32], e[512];
	size_t		 i;
	int		 k;

	if (json_object_object_length(o) == 0) {
		snprintf(err, errsz, "the body names no setting");
		return SETTINGS_APPLY_BAD;
	}
	json_object_object_foreach(o, key, val) {
		for (i = 0; settings_describe(i, &d) == 0; i++)
			if (strcmp(d.name, key) == 0)
				break;
		if (i == SETTINGS_N) {
			snprintf(err, errsz, "unknown setting '%.64s'", key);
			return SETTINGS_APPLY_BAD;
		}
		if (allowed != NULL && !util_str_in(allowed, key)) {
			snprintf(err, errsz, "setting '%s' does not belong to this step",
			    key);
			return SETTINGS_APPLY_BAD;
		}
		if (settings_value_text(&d, val, num, sizeof(num), &v, err, errsz) == -1)
			return SETTINGS_APPLY_BAD;
		if (v == NULL || *v == '\0') {
			if (settings_unset(db, key) == -1) {
				snprintf(err, errsz, "database error");
				return SETTINGS_APPLY_DBERR;
			}
		} else if ((k = settings_set(db, datadir, key, v, e, sizeof(e))) == -2) {
			log_err("%s: %s", __func__, e);
			snprintf(err, errsz, "database error");
			return SETTINGS_APPLY_DBERR;
		} else if (k != 0) {
			snprintf(err, errsz, "%s", e);
			return SETTINGS_APPLY_BAD;
		}
	}
	return SETTINGS_APPLY_OK;
}

enum settings_apply_result
settings_save_json(struct db *db, const char *datadir, json_object *o, char *err,
    size_t errsz)
{
	enum settings_apply_result rc;

	if (db_begin(db) == -1) {
		snprintf(err, errsz, "database error");
		return SETTINGS_APPLY_DBERR;
	}
	if ((rc = settings_apply_json(db, datadir, o, NULL, err, errsz)) ==
	    SETTINGS_APPLY_OK && db_commit(db) == -1) {
		snprintf(err, errsz, "database error");
		rc = SETTINGS_APPLY_DBERR;
	}
	if (rc != SETTINGS_APPLY_OK)
		db_rollback(db);
	return rc;
}
