/*
 * inject.c: the content rules against text aimed at the agents that read the answers
 * (inject.h; the rules are documented in ctxd-content(7)).
 *
 * Three kinds of matchers, all linear in the text:
 * - word patterns: a text is read as a stream of lowercase words (ASCII letters, digits
 *   and apostrophes; sentences end at ". ", "! ", "? " and blank lines). A pattern is a
 *   sequence of slots, each a set of words, with at most gap[k] other words between slot
 *   k-1 and slot k, inside one sentence. Matching keeps, per pattern and slot, the word
 *   index of the latest match of the slots up to it: a later match never does worse, so
 *   one pass over the words decides every pattern. A pattern may name words that, right
 *   after a match, undo it ("ignore the above instructions if you use yarn").
 * - literals: chat-template role markers, some only at the start of a line.
 * - scanners: invisible characters, HTML comments in prose, "curl … | sh" in prose.
 * The word sets were chosen against the corpora (bench/inject counts the flags per rule on
 * every corpus): words that ordinary documentation uses in the same order ("act as if",
 * "you are now free to", "ignore all rules", "override the system prompt", "without
 * prompting for confirmation") are left out on purpose.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "parse/parse.h"
#include "search/format.h"
#include "search/inject.h"
#include "search/search.h"
#include "store/flags.h"
#include "store/jobs.h"
#include "store/library.h"
#include "store/settings.h"

enum inject_rule_no {
	R_OVERRIDE, R_ROLE, R_PROMPT_LEAK, R_CONCEAL, R_AGENT_ADDRESS, R_ROLE_TAG,
	R_EXFILTRATION, R_COVERT_EXEC, R_PIPE_TO_SHELL, R_HIDDEN_COMMENT, R_INVISIBLE,
	R_N
};

static const struct {
	const char	*id;
	const char	*description;
} inject_rules[R_N] = {
	{ "override", "tells the reader to ignore, disregard or forget its previous "
	  "instructions, prompt or rules" },
	{ "role", "gives the reader a new role or identity (\"you are now ...\", \"from "
	  "now on you will respond ...\", \"act as an unrestricted AI\")" },
	{ "prompt-leak", "asks the reader to reveal or repeat its instructions or "
	  "system prompt" },
	{ "conceal", "asks the reader to keep something from the user (\"do not tell "
	  "the user\", \"without informing the user\")" },
	{ "agent-address", "speaks to AI agents as such (\"note to AI assistants\", "
	  "\"if you are an LLM\", \"AI agents reading this\")" },
	{ "role-tag", "chat-template role markers that fake a system or user turn "
	  "(<|im_start|>, [INST], <<SYS>>, a \"### System:\" line)" },
	{ "exfiltration", "asks the reader to send secrets, environment, credentials or "
	  "the conversation to a URL" },
	{ "covert-exec", "asks the reader to run, install or send something without "
	  "asking or telling the user" },
	{ "pipe-to-shell", "a \"curl/wget ... | sh\" command in prose that also speaks "
	  "of AI agents or models" },
	{ "hidden-comment", "an HTML comment in prose (hidden from a reader of the "
	  "rendered page) that speaks of AI, agents, models, prompts or instructions" },
	{ "invisible-text", "tag characters, bidirectional controls, or zero-width "
	  "characters inside a word or in numbers, which can hide text from a human "
	  "reader (invisible characters are always stripped)" },
};

/* The cue sets: words looked up by the scanners, not rules of their own. */
#define CUE_AI		(-1)	/* names AI agents or models (pipe-to-shell) */
#define CUE_AINAME	(-2)	/* names AI as such (hidden-comment) */
#define CUE_ORDER	(-3)	/* a verb of command (hidden-comment) */
#define CUE_FETCH	(-4)	/* curl, wget (pipe-to-shell) */
/* Words between "curl ... | sh" and the word naming AI agents, at most. */
#define INJECT_PIPE_NEAR	25

#define INJECT_SLOTS	6
#define INJECT_WORD_MAX	24

struct inject_pattern {
	int		 rule;			/* R_* or CUE_* */
	const char	*slot[INJECT_SLOTS];	/* "a|b|c"; NULL ends */
	unsigned char	 gap[INJECT_SLOTS];	/* words allowed before slot k (k > 0) */
	const char	*notnext;		/* a match followed by one of these is none */
};

/* Word sets used by several patterns (":" is the word a colon makes). */
#define W_NOTE	"note|message|attention|instructions|instruction|reminder|notice|" \
		"warning|important|memo|hint"
#define W_AI	"ai|llm|llms|chatbot|chatbots|chatgpt|gpt|claude|copilot|gemini"
#define W_AI2A	"language|large|automated|autonomous|coding"
#define W_AI2B	"model|models|agent|agents|assistant|assistants"
#define W_SENT	"ssh|id_rsa|id_ed25519|env|dotenv|environment|secrets|cookies|" \
		"conversation|conversations|history|netrc|keychain|wallet|passwd|shadow|" \
		"credentials|passwords|user's"
#define W_OUT	"send|post|upload|forward|transmit|exfiltrate|leak|email|mail|submit|" \
		"paste|copy|append|attach|encode|include"
#define W_DO	"run|execute|install|download|invoke|call|eval|evaluate|perform|start|" \
		"launch|apply|commit|push|delete|remove|send|upload|modify|change|write"

static const struct inject_pattern inject_patterns[] = {
	/* override */
	{ R_OVERRIDE, { "ignore|disregard|forget",
	    "previous|prior|above|earlier|preceding|foregoing|original|initial|former|all|"
	    "any|your|system|every|other",
	    "instruction|instructions|prompt|prompts|directive|directives|guidance|"
	    "programming" }, { 0, 3, 2 },
	    "if|when|unless|whenever|about|regarding|concerning" },
	{ R_OVERRIDE, { "ignore|disregard|forget",
	    "previous|prior|above|earlier|preceding|foregoing|original|initial|your",
	    "rules|context|messages|text|content|conversation|directions|orders|"
	    "constraints|restrictions|limitations|commands|guidelines" }, { 0, 3, 2 },
	    "if|when|unless|whenever|about|regarding|concerning" },
	{ R_OVERRIDE, { "ignore|disregard|forget", "everything|anything|all",
	    "above|previously|said|told|instructed|earlier|prior" }, { 0, 1, 2 },
	    "if|when|unless|whenever" },
	/* role */
	{ R_ROLE, { "you", "are", "now", "ai|assistant|llm|chatbot|gpt|dan|jailbroken|"
	    "unrestricted|unfiltered|uncensored|evil|malicious" }, { 0, 0, 0, 2 }, NULL },
	{ R_ROLE, { "you", "are", "now", "developer|god|jailbreak|dan|sudo|unrestricted",
	    "mode" }, { 0, 0, 0, 2, 0 }, NULL },
	{ R_ROLE, { "from", "now", "on", "you", "respond|reply|answer|act|behave|pretend|"
	    "obey|roleplay|impersonate|speak|talk" }, { 0, 0, 0, 1, 4 }, NULL },
	{ R_ROLE, { "act|behave|respond|roleplay|pose", "as|like", "ai|llm|chatbot|gpt|"
	    "dan|jailbroken|unrestricted|unfiltered|uncensored|evil|malicious" },
	    { 0, 1, 2 }, NULL },
	{ R_ROLE, { "pretend|imagine", "you|you're|youre", "ai|assistant|llm|dan|"
	    "jailbroken|unrestricted|unfiltered|uncensored" }, { 0, 1, 3 }, NULL },
	{ R_ROLE, { "enable|enter|activate|switch|turn", "dan|jailbreak|jailbroken|god|"
	    "unrestricted|unfiltered|uncensored", "mode" }, { 0, 2, 0 }, NULL },
	/* prompt-leak */
	{ R_PROMPT_LEAK, { "reveal|repeat|print|output|disclose|leak|dump|recite|display|"
	    "show", "your", "prompt|prompts|instructions|instruction|directives|"
	    "guidelines" }, { 0, 3, 2 }, NULL },
	{ R_PROMPT_LEAK, { "reveal|repeat|print|output|disclose|leak|dump|recite|display|"
	    "show", "hidden|secret|initial", "prompt|prompts|instructions" },
	    { 0, 3, 1 }, NULL },
	{ R_PROMPT_LEAK, { "what", "is|are|were", "your", "instructions|prompt|"
	    "system|directives" }, { 0, 1, 0, 2 }, NULL },
	/* conceal */
	{ R_CONCEAL, { "don't|dont|never|not", "tell|inform|mention|reveal|disclose",
	    "user|users|human|humans" }, { 0, 1, 2 }, NULL },
	{ R_CONCEAL, { "don't|dont|never|not", "tell|inform|mention|reveal|disclose",
	    "this|it|that|anything", "to", "user|users|human|humans" },
	    { 0, 1, 0, 0, 1 }, NULL },
	{ R_CONCEAL, { "without", "telling|informing|notifying|letting|alerting",
	    "user|users|human|humans" }, { 0, 0, 1 }, NULL },
	{ R_CONCEAL, { "keep", "secret|hidden|confidential|quiet", "from",
	    "user|users|human|humans" }, { 0, 2, 2, 1 }, NULL },
	/* agent-address ("if you are (a|an) ...": no other word between) */
	{ R_AGENT_ADDRESS, { "if", "you", "are", W_AI }, { 0, 0, 0, 0 }, NULL },
	{ R_AGENT_ADDRESS, { "if", "you", "are", "a|an", W_AI }, { 0, 0, 0, 0, 0 },
	    NULL },
	{ R_AGENT_ADDRESS, { "if", "you're|youre", W_AI }, { 0, 0, 0 }, NULL },
	{ R_AGENT_ADDRESS, { "if", "you're|youre", "a|an", W_AI }, { 0, 0, 0, 0 },
	    NULL },
	{ R_AGENT_ADDRESS, { "if", "you", "are", "a|an", W_AI2A "|" W_AI, W_AI2B },
	    { 0, 0, 0, 0, 0 }, NULL },
	{ R_AGENT_ADDRESS, { "if", "you're|youre", "a|an", W_AI2A "|" W_AI, W_AI2B },
	    { 0, 0, 0, 0, 0 }, NULL },
	/* "Instructions for AI agents:" (with the colon), "Note to LLMs" */
	{ R_AGENT_ADDRESS, { W_NOTE, "to|for", W_AI, ":" }, { 0, 0, 1, 1 }, NULL },
	{ R_AGENT_ADDRESS, { W_NOTE, "to|for", W_AI2A, W_AI2B, ":" },
	    { 0, 0, 1, 0, 0 }, NULL },
	{ R_AGENT_ADDRESS, { "note|reminder|memo", "to", W_AI }, { 0, 0, 1 },
	    "users|user|developers|integration|integrations|providers|provider|framework|"
	    "frameworks|library|libraries|application|applications|apps|app|api|apis|"
	    "output|outputs|calls|support" },
	{ R_AGENT_ADDRESS, { "note|reminder|memo", "to", W_AI2A, W_AI2B },
	    { 0, 0, 1, 0 }, NULL },
	{ R_AGENT_ADDRESS, { "attention|calling", W_AI, ":" }, { 0, 0, 1 }, NULL },
	{ R_AGENT_ADDRESS, { "attention|calling", W_AI2A, W_AI2B, ":" }, { 0, 0, 0, 0 },
	    NULL },
	{ R_AGENT_ADDRESS, { W_AI, "reading|processing|parsing|summarizing|summarising|"
	    "ingesting|consuming|crawling|scraping|indexing", "this" }, { 0, 3, 1 }, NULL },
	{ R_AGENT_ADDRESS, { W_AI2B, "reading|processing|parsing|summarizing|"
	    "summarising|ingesting|consuming", "this" }, { 0, 1, 1 }, NULL },
	{ R_AGENT_ADDRESS, { "dear|hey|hello|hi|psst", W_AI }, { 0, 0 }, NULL },
	/* exfiltration: a sensitive thing and then a URL */
	{ R_EXFILTRATION, { W_OUT, W_SENT, "to|at", "http|https" }, { 0, 6, 8, 2 },
	    NULL },
	/* covert-exec */
	{ R_COVERT_EXEC, { W_DO, "without", "asking|confirming|consulting|checking|"
	    "bothering|waiting|telling|informing|notifying|alerting",
	    "user|users|human|humans|anyone|me" }, { 0, 8, 0, 2 }, NULL },
	{ R_COVERT_EXEC, { W_DO, "without", "user's|user|users|human's|human|"
	    "their", "knowledge|consent|approval|permission|confirmation|awareness" },
	    { 0, 8, 2, 0 }, NULL },
	{ R_COVERT_EXEC, { "secretly|covertly", W_DO }, { 0, 2 }, NULL },
	/* cue sets */
	{ CUE_AI, { W_AI "|" W_AI2B }, { 0 }, NULL },
	{ CUE_AINAME, { W_AI }, { 0 }, NULL },
	{ CUE_ORDER, { "must|should|always|never|recommend|prefer|say|tell|use|add|"
	    "install|run|ignore|disregard|mention|suggest|reply|respond|answer|obey|"
	    "follow|do|don't|dont" }, { 0 }, NULL },
	{ CUE_FETCH, { "curl|wget" }, { 0 }, NULL },
};
#define INJECT_NPAT	(sizeof(inject_patterns) / sizeof(inject_patterns[0]))

/* Chat-template role markers (lowercase); line: only at the start of a line. */
static const struct {
	const char	*s;
	int		 line;
} inject_tags[] = {
	{ "<|im_start|>", 0 }, { "<|im_end|>", 0 }, { "<|system|>", 0 },
	{ "<|user|>", 0 }, { "<|assistant|>", 0 }, { "<|endoftext|>", 0 },
	{ "<|eot_id|>", 0 }, { "<|start_header_id|>", 0 }, { "<|begin_of_text|>", 0 },
	{ "[inst]", 0 }, { "[/inst]", 0 }, { "<<sys>>", 0 }, { "<</sys>>", 0 },
	{ "<start_of_turn>", 0 }, { "<end_of_turn>", 0 },
	{ "### system:", 1 }, { "### instruction:", 1 }, { "### instructions:", 1 },
	{ "### assistant:", 1 }, { "### human:", 1 }, { "### user:", 1 },
};
/* Section titles that are such a line once parsed ("### System:" is a heading). */
static const char *const inject_tag_titles[] = {
	"system:", "instruction:", "instructions:", "assistant:", "human:", "user:",
};

/* ---------------------------------------------------------------- the word table */

struct inject_entry {
	char		 word[INJECT_WORD_MAX + 1];
	short		 pat;
	short		 slot;
};

static struct inject_entry *inject_table;
static size_t	 inject_ntable;

static int
inject_entry_cmp(const void *a, const void *b)
{
	const struct inject_entry *x = a, *y = b;
	int	 c;

	if ((c = strcmp(x->word, y->word)) != 0)
		return c;
	if (x->pat != y->pat)
		return x->pat - y->pat;
	return y->slot - x->slot;	/* later slots first: see inject_word */
}

/* Builds the sorted table of (word, pattern, slot) once; -1 when out of memory. */
static int
inject_init(void)
{
	const char	*p, *e;
	size_t		 i, k, cap = 0, n;
	struct inject_entry *t;

	if (inject_table != NULL)
		return 0;
	for (i = 0; i < INJECT_NPAT; i++)
		for (k = 0; k < INJECT_SLOTS && inject_patterns[i].slot[k] != NULL; k++)
			for (p = inject_patterns[i].slot[k]; p != NULL;
			    p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
				cap++;
	if ((t = calloc(cap, sizeof(*t))) == NULL)
		return -1;
	for (i = 0, n = 0; i < INJECT_NPAT; i++)
		for (k = 0; k < INJECT_SLOTS && inject_patterns[i].slot[k] != NULL; k++)
			for (p = inject_patterns[i].slot[k]; *p != '\0'; p = *e ? e + 1 : e) {
				e = p + strcspn(p, "|");
				if ((size_t)(e - p) <= INJECT_WORD_MAX) {
					memcpy(t[n].word, p, (size_t)(e - p));
					t[n].pat = (short)i;
					t[n++].slot = (short)k;
				}
			}
	qsort(t, n, sizeof(*t), inject_entry_cmp);
	inject_table = t;
	inject_ntable = n;
	return 0;
}

/* The first entry of word w, or NULL (binary search). */
static const struct inject_entry *
inject_lookup(const char *w)
{
	size_t	 lo = 0, hi = inject_ntable, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(inject_table[mid].word, w) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < inject_ntable && strcmp(inject_table[lo].word, w) == 0 ?
	    &inject_table[lo] : NULL;
}

/* 1 when w is one of the "a|b|c" words of list. */
static int
inject_in_list(const char *list, const char *w)
{
	size_t	 n = strlen(w);
	const char *p, *e;

	for (p = list; p != NULL && *p != '\0'; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "|");
		if ((size_t)(e - p) == n && strncmp(p, w, n) == 0)
			return 1;
	}
	return 0;
}

/* ---------------------------------------------------------------- words */

/* Length of the invisible character at p, 0 when there is none. */
static size_t
inject_invisible_len(const unsigned char *p)
{
	if (p[0] == 0xe2 && p[1] == 0x80 && ((p[2] >= 0x8b && p[2] <= 0x8f) ||
	    (p[2] >= 0xaa && p[2] <= 0xae)))
		return 3;
	if (p[0] == 0xe2 && p[1] == 0x81 && ((p[2] >= 0xa0 && p[2] <= 0xa4) ||
	    (p[2] >= 0xa6 && p[2] <= 0xa9)))
		return 3;
	if (p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		return 3;
	if (p[0] == 0xf3 && p[1] == 0xa0 && (p[2] == 0x80 || p[2] == 0x81) &&
	    p[3] >= 0x80 && p[3] <= 0xbf)
		return 4;
	return 0;
}

/* A reader of the words of s[0..n). */
struct inject_tok {
	const unsigned char *s;
	size_t		 n, i;
	char		 w[INJECT_WORD_MAX + 1];
	size_t		 a, b;		/* the word's bytes */
	int		 toolong;
};

enum { TOK_END, TOK_WORD, TOK_STOP };

/* Bytes of a separator at p (ASCII punctuation, U+00A0, U+2000-U+206F but U+2019). */
static size_t
inject_sep(const unsigned char *p, size_t left)
{
	if (*p < 0x80)
		return (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '\'' || *p == '_' ? 0 : 1;
	if (left >= 2 && p[0] == 0xc2 && p[1] == 0xa0)
		return 2;
	if (left >= 3 && p[0] == 0xe2 && (p[1] == 0x80 || p[1] == 0x81) &&
	    !(p[1] == 0x80 && p[2] == 0x99))
		return 3;
	return 0;
}

/*
 * The next word (TOK_WORD: t->w lowercase, t->a, t->b; a colon before white space is the
 * word ":"), a sentence end (TOK_STOP: ". ", "! ", "? " or a blank line) or TOK_END.
 */
static int
inject_next(struct inject_tok *t)
{
	const unsigned char *s = t->s;
	size_t	 k = 0, sep;
	int	 c;

	while (t->i < t->n) {
		c = s[t->i];
		if ((c == '.' || c == '!' || c == '?') && (t->i + 1 == t->n ||
		    s[t->i + 1] == ' ' || s[t->i + 1] == '\n' || s[t->i + 1] == '\t')) {
			t->i++;
			return TOK_STOP;
		}
		if (c == '\n' && t->i + 1 < t->n && s[t->i + 1] == '\n') {
			t->i += 2;
			return TOK_STOP;
		}
		if (c == ':' && (t->i + 1 == t->n || s[t->i + 1] == ' ' ||
		    s[t->i + 1] == '\n' || s[t->i + 1] == '\t')) {
			/* ": " is a word of its own, for the patterns that end with one */
			t->a = t->i++;
			t->b = t->i;
			t->w[0] = ':';
			t->w[1] = '\0';
			t->toolong = 0;
			return TOK_WORD;
		}
		if ((sep = inject_sep(s + t->i, t->n - t->i)) == 0)
			break;
		t->i += sep;
	}
	if (t->i >= t->n)
		return TOK_END;
	t->a = t->i;
	t->toolong = 0;
	while (t->i < t->n && inject_sep(s + t->i, t->n - t->i) == 0) {
		c = s[t->i];
		if (c == 0xe2 && t->i + 2 < t->n && s[t->i + 1] == 0x80 &&
		    s[t->i + 2] == 0x99) {		/* U+2019 is an apostrophe */
			c = '\'';
			t->i += 2;
		}
		if (k < INJECT_WORD_MAX)
			t->w[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 'a' - 'A' : c);
		else
			t->toolong = 1;
		t->i++;
	}
	/* Apostrophes around a word are quotes. */
	while (k > 0 && t->w[k - 1] == '\'')
		k--;
	t->w[k] = '\0';
	if (t->w[0] == '\'')
		memmove(t->w, t->w + 1, k);
	t->b = t->i;
	return TOK_WORD;
}

/* ---------------------------------------------------------------- verdicts */

static int
inject_has(const struct inject_verdict *v, int rule)
{
	size_t	 i;

	for (i = 0; i < v->n; i++)
		if (v->hit[i].rule == inject_rules[rule].id)
			return 1;
	return 0;
}

/*
 * The excerpt of s[a..b): from a little before a to a little after b, at most
 * INJECT_EXCERPT_MAX bytes, UTF-8 characters whole, white space squeezed.
 */
static void
inject_excerpt(const char *s, size_t len, size_t a, size_t b, char *out)
{
	size_t	 from, to, o = 0, i;
	int	 sp = 0;

	from = a > 40 ? a - 40 : 0;
	while (from > 0 && from < a && ((unsigned char)s[from] & 0xc0) == 0x80)
		from++;
	to = b + 60 < len ? b + 60 : len;
	if (to - from > INJECT_EXCERPT_MAX)
		to = from + INJECT_EXCERPT_MAX;
	while (to > from && to < len && ((unsigned char)s[to] & 0xc0) == 0x80)
		to--;
	for (i = from; i < to && o < INJECT_EXCERPT_MAX; i++) {
		if (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r') {
			sp = o > 0;
			continue;
		}
		if (sp && o + 1 < INJECT_EXCERPT_MAX)
			out[o++] = ' ';
		sp = 0;
		out[o++] = s[i];
	}
	out[o] = '\0';
}

static void
inject_add(struct inject_verdict *v, int rule, const char *s, size_t len, size_t a,
    size_t b)
{
	if (rule < 0 || v->n >= INJECT_RULES_MAX || inject_has(v, rule))
		return;
	v->hit[v->n].rule = inject_rules[rule].id;
	inject_excerpt(s, len, a, b, v->hit[v->n].excerpt);
	v->n++;
}

/* ---------------------------------------------------------------- word patterns */

struct inject_state {
	long		 last[INJECT_NPAT][INJECT_SLOTS];	/* word index, -1: none */
	size_t		 start[INJECT_NPAT][INJECT_SLOTS];	/* byte of the first word */
	long		 pend[INJECT_NPAT];			/* word index of a match */
	size_t		 pa[INJECT_NPAT], pb[INJECT_NPAT];
	int		 pipe;		/* a curl | sh line near a word naming AI */
	long		 pipe_q, ai_q;	/* word index of the last such line, AI word */
	size_t		 pipe_a, pipe_b;
	size_t		 pipe_seen;	/* the line up to here has no "| sh" after a curl */
};

static void
inject_reset(struct inject_state *st)
{
	size_t	 i, k;

	for (i = 0; i < INJECT_NPAT; i++) {
		for (k = 0; k < INJECT_SLOTS; k++)
			st->last[i][k] = -1;
		st->pend[i] = -1;
	}
}

/* Decides the pending matches: the word w (NULL: a sentence end) follows them. */
static void
inject_settle(struct inject_state *st, const char *w, const char *s, size_t len,
    struct inject_verdict *v)
{
	size_t	 i;

	for (i = 0; i < INJECT_NPAT; i++) {
		if (st->pend[i] < 0)
			continue;
		if (w == NULL || !inject_in_list(inject_patterns[i].notnext, w))
			inject_add(v, inject_patterns[i].rule, s, len, st->pa[i], st->pb[i]);
		st->pend[i] = -1;
	}
}

/* The number of slots of pattern p. */
static size_t
inject_nslots(const struct inject_pattern *p)
{
	size_t	 k;

	for (k = 0; k < INJECT_SLOTS && p->slot[k] != NULL; k++)
		continue;
	return k;
}

/*
 * "curl"/"wget" ending at s[b] in prose: whether the rest of its line pipes into a shell
 * ("| sh", "| sudo bash", ...). *seen is where the last look ended: a later curl on the
 * same line has nothing new to find there, so that every byte is looked at once.
 */
static int
inject_pipe_line(const char *s, size_t len, size_t b, size_t *seen)
{
	size_t	 i, j, k;
	static const char *const shells[] = { "sh", "bash", "zsh", "dash", "ksh" };

	if (b < *seen)
		return 0;
	for (i = b; i < len && s[i] != '\n'; i++) {
		if (s[i] != '|' || (i + 1 < len && s[i + 1] == '|'))
			continue;
		for (j = i + 1; j < len && s[j] == ' '; j++)
			continue;
		if (len - j > 5 && strncmp(s + j, "sudo ", 5) == 0)
			for (j += 5; j < len && s[j] == ' '; j++)
				continue;
		for (k = 0; k < sizeof(shells) / sizeof(shells[0]); k++) {
			size_t n = strlen(shells[k]);

			if (len - j >= n && strncmp(s + j, shells[k], n) == 0 &&
			    (j + n == len || !((s[j + n] >= 'a' && s[j + n] <= 'z') ||
			    (s[j + n] >= '0' && s[j + n] <= '9'))))
				return 1;
		}
	}
	*seen = i;
	return 0;
}

/* One word (index q) through every pattern that has it in a slot. */
static void
inject_word(struct inject_state *st, const struct inject_tok *t, long q, int prose,
    struct inject_verdict *v)
{
	const struct inject_entry *e, *end = inject_table + inject_ntable;
	const struct inject_pattern *p;
	const char	*s = (const char *)t->s;
	int		 k;

	inject_settle(st, t->w, s, t->n, v);
	if (t->toolong || (e = inject_lookup(t->w)) == NULL)
		return;
	for (; e < end && strcmp(e->word, t->w) == 0; e++) {
		p = &inject_patterns[e->pat];
		k = e->slot;
		if (p->rule < 0) {
			if (p->rule == CUE_AI)
				st->ai_q = q;
			if (p->rule == CUE_FETCH && prose &&
			    inject_pipe_line(s, t->n, t->b, &st->pipe_seen)) {
				st->pipe_q = q;
				st->pipe_a = t->a;
				st->pipe_b = t->b;
			}
			if (st->pipe_q >= 0 && st->ai_q >= 0 && !st->pipe &&
			    labs(st->pipe_q - st->ai_q) <= INJECT_PIPE_NEAR) {
				st->pipe = 1;
				inject_add(v, R_PIPE_TO_SHELL, s, t->n, st->pipe_a,
				    st->pipe_b);
			}
			continue;
		}
		if (k == 0) {
			st->last[e->pat][0] = q;
			st->start[e->pat][0] = t->a;
		} else if (st->last[e->pat][k - 1] >= 0 &&
		    q - st->last[e->pat][k - 1] - 1 <= p->gap[k]) {
			st->last[e->pat][k] = q;
			st->start[e->pat][k] = st->start[e->pat][k - 1];
		} else
			continue;
		if ((size_t)k + 1 == inject_nslots(p)) {
			if (p->notnext != NULL) {
				st->pend[e->pat] = q;
				st->pa[e->pat] = st->start[e->pat][k];
				st->pb[e->pat] = t->b;
			} else
				inject_add(v, p->rule, s, t->n, st->start[e->pat][k], t->b);
		}
	}
}

/*
 * Whether an HTML comment's text s[a..b) names AI (CUE_AINAME) and holds a verb of
 * command (CUE_ORDER).
 */
static int
inject_comment_cue(const char *s, size_t a, size_t b)
{
	struct inject_tok t;
	const struct inject_entry *e, *end = inject_table + inject_ntable;
	unsigned	 cues = 0, want = (1u << -CUE_AINAME) | (1u << -CUE_ORDER);
	int		 r;

	memset(&t, 0, sizeof(t));
	t.s = (const unsigned char *)s + a;
	t.n = b - a;
	while ((r = inject_next(&t)) != TOK_END) {
		if (r != TOK_WORD || t.toolong || (e = inject_lookup(t.w)) == NULL)
			continue;
		for (; e < end && strcmp(e->word, t.w) == 0; e++)
			if (inject_patterns[e->pat].rule == CUE_AINAME ||
			    inject_patterns[e->pat].rule == CUE_ORDER)
				cues |= 1u << -inject_patterns[e->pat].rule;
		if ((cues & want) == want)
			return 1;
	}
	return 0;
}

/* Role markers and, in prose, HTML comments that speak of agents. */
static void
inject_literals(const char *s, size_t len, int prose, struct inject_verdict *v)
{
	const char	*end;
	size_t		 i, j, k, n, ls, cend = 0;

	for (i = 0; i < len; i++) {
		if (s[i] != '<' && s[i] != '[' && s[i] != '#')
			continue;
		/*
		 * A comment's text (at most 4096 bytes) is read once: a "<!--" inside it
		 * opens no other (linear time). The markers inside are still looked at.
		 */
		if (prose && i >= cend && len - i >= 4 && strncmp(s + i, "<!--", 4) == 0 &&
		    !inject_has(v, R_HIDDEN_COMMENT)) {
			n = len - i - 4 < 4096 ? len - i - 4 : 4096;
			end = memmem(s + i + 4, n, "-->", 3);
			j = end != NULL ? (size_t)(end - s) : i + 4 + n;
			if (inject_comment_cue(s, i + 4, j))
				inject_add(v, R_HIDDEN_COMMENT, s, len, i,
				    end != NULL ? j + 3 : j);
			cend = j;
		}
		for (k = 0; k < sizeof(inject_tags) / sizeof(inject_tags[0]); k++) {
			n = strlen(inject_tags[k].s);
			if (len - i < n || strncasecmp(s + i, inject_tags[k].s, n) != 0)
				continue;
			if (inject_tags[k].line) {
				for (ls = i; ls > 0 && i - ls < 4 && s[ls - 1] == ' '; ls--)
					continue;
				if (ls > 0 && s[ls - 1] != '\n')
					continue;
			}
			inject_add(v, R_ROLE_TAG, s, len, i, i + n);
		}
	}
}

void
inject_scan(const char *s, int prose, struct inject_verdict *v)
{
	struct inject_state *st;
	struct inject_tok t;
	long		 q = 0;
	int		 r;

	if (s == NULL || *s == '\0' || inject_init() == -1 ||
	    (st = calloc(1, sizeof(*st))) == NULL)
		return;
	inject_reset(st);
	st->pipe_q = st->ai_q = -1;
	memset(&t, 0, sizeof(t));
	t.s = (const unsigned char *)s;
	t.n = strlen(s);
	while ((r = inject_next(&t)) != TOK_END) {
		if (r == TOK_STOP) {
			inject_settle(st, NULL, s, t.n, v);
			inject_reset(st);
			continue;
		}
		inject_word(st, &t, q++, prose, v);
	}
	inject_settle(st, NULL, s, t.n, v);
	inject_literals(s, t.n, prose, v);
	free(st);
}

/* ---------------------------------------------------------------- invisible text */

/*
 * Length of the invisible character at p (s: the start of its string), 0 when there is
 * none. A zero-width joiner or non-joiner next to a non-ASCII character (an emoji
 * sequence, a script that needs it) is not invisible text: 0 too, it is kept.
 */
static size_t
inject_invisible_at(const unsigned char *s, const unsigned char *p)
{
	size_t	 n = inject_invisible_len(p);

	if (n == 3 && p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0x8c || p[2] == 0x8d) &&
	    ((p > s && p[-1] >= 0x80) || p[3] >= 0x80))
		return 0;
	return n;
}

/* Bidirectional embedding, override or isolate (U+202A-U+202E, U+2066-U+2069) at p. */
static int
inject_is_bidi(const unsigned char *p)
{
	return p[0] == 0xe2 && ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) ||
	    (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9));
}

static int
inject_alnum(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Zero-width characters in one string from which on they are suspect anywhere. */
#define INJECT_ZW_MANY	8

/*
 * The first invisible character of s when they can hide something there, else NULL:
 * a tag character, a bidirectional control, a zero-width character inside a word
 * (between ASCII letters or digits), or INJECT_ZW_MANY zero-width characters. (A lone
 * zero-width space between tags or words, as typesetting leaves them, is only stripped.)
 */
static const unsigned char *
inject_invisible_suspect(const char *str)
{
	const unsigned char *s = (const unsigned char *)str, *p, *q, *first = NULL;
	size_t		 n, zw = 0;
	int		 bad = 0, before;

	for (p = s; *p != '\0'; ) {
		if (inject_invisible_at(s, p) == 0) {
			p++;
			continue;
		}
		if (first == NULL)
			first = p;
		before = p > s ? p[-1] : 0;
		for (q = p; (n = inject_invisible_at(s, q)) > 0; q += n)
			if (n == 4 || inject_is_bidi(q))
				bad = 1;
			else
				zw++;
		if (inject_alnum(before) && inject_alnum(*q))
			bad = 1;
		p = q;
	}
	return bad || zw >= INJECT_ZW_MANY ? first : NULL;
}

/*
 * Records rule invisible-text for s when its invisible characters can hide something
 * (inject_invisible_suspect): the excerpt shows the text around the first one with each
 * shown as <U+XXXX>, and a run of tag characters decoded as <tags: text>.
 */
static void
inject_invisible(const char *s, struct inject_verdict *v)
{
	const unsigned char *u = (const unsigned char *)s, *p, *first, *stop;
	struct buf	 b;
	size_t		 n;
	unsigned	 cp;
	int		 rc = 0;

	if (s == NULL || inject_has(v, R_INVISIBLE) || v->n >= INJECT_RULES_MAX ||
	    (first = inject_invisible_suspect(s)) == NULL)
		return;
	p = first - ((size_t)(first - u) > 40 ? 40 : (size_t)(first - u));
	while (p < first && (*p & 0xc0) == 0x80)
		p++;
	buf_init(&b);
	for (stop = first + 200; rc == 0 && *p != '\0' && p < stop &&
	    b.len < INJECT_EXCERPT_MAX; ) {
		if ((n = inject_invisible_at(u, p)) == 4) {
			rc = buf_adds(&b, "<tags: ");
			for (; rc == 0 && inject_invisible_len(p) == 4; p += 4) {
				cp = ((unsigned)(p[2] & 0x01) << 6) | (p[3] & 0x3f);
				if (cp >= 0x20 && cp < 0x7f)
					rc = buf_addc(&b, (char)cp);
			}
			if (rc == 0)
				rc = buf_addc(&b, '>');
		} else if (n == 3) {
			cp = ((unsigned)(p[0] & 0x0f) << 12) | ((unsigned)(p[1] & 0x3f) << 6) |
			    (p[2] & 0x3f);
			rc = buf_printf(&b, "<U+%04X>", cp);
			p += 3;
		} else
			rc = buf_addc(&b, *p == '\n' ? ' ' : (char)*p++);
	}
	v->hit[v->n].rule = inject_rules[R_INVISIBLE].id;
	inject_excerpt(b.p != NULL ? b.p : "", b.len, 0, b.len, v->hit[v->n].excerpt);
	v->n++;
	buf_release(&b);
}

size_t
inject_strip(char *s)
{
	unsigned char	*r, *w;
	size_t		 n, removed = 0;

	if (s == NULL)
		return 0;
	for (r = w = (unsigned char *)s; *r != '\0'; ) {
		if ((n = inject_invisible_at((unsigned char *)s, r)) > 0) {
			r += n;
			removed++;
		} else
			*w++ = *r++;
	}
	*w = '\0';
	return removed;
}

/* Strips one string, after recording what it held. */
static void
inject_clean(char *s, struct inject_verdict *v)
{
	inject_invisible(s, v);
	inject_strip(s);
}

void
inject_section(struct doc_section *s, struct inject_verdict *v)
{
	size_t	 i;

	memset(v, 0, sizeof(*v));
	inject_clean(s->title, v);
	inject_clean(s->breadcrumb, v);
	inject_clean(s->anchor, v);
	inject_clean(s->text, v);
	for (i = 0; i < s->ncode; i++) {
		inject_clean(s->code[i].lang, v);
		inject_clean(s->code[i].code, v);
	}
	inject_scan(s->title, 1, v);
	for (i = 0; s->title != NULL && i < sizeof(inject_tag_titles) /
	    sizeof(inject_tag_titles[0]); i++)
		if (strcasecmp(s->title, inject_tag_titles[i]) == 0)
			inject_add(v, R_ROLE_TAG, s->title, strlen(s->title), 0,
			    strlen(s->title));
	inject_scan(s->text, 1, v);
	for (i = 0; i < s->ncode; i++)
		inject_scan(s->code[i].code, 0, v);
}

/* ---------------------------------------------------------------- rules, mode */

const char *
inject_rule_id(size_t i)
{
	return i < R_N ? inject_rules[i].id : NULL;
}

const char *
inject_rule_description(size_t i)
{
	return i < R_N ? inject_rules[i].description : NULL;
}

enum inject_mode
inject_mode_parse(const char *v)
{
	if (v != NULL && strcmp(v, "mark") == 0)
		return INJECT_MARK;
	if (v != NULL && strcmp(v, "off") == 0)
		return INJECT_OFF;
	return INJECT_HOLD;
}

enum inject_mode
inject_mode_get(struct db *db)
{
	char		*v = settings_get(db, util_data_dir(), INJECT_SETTING);
	enum inject_mode m = inject_mode_parse(v);

	free(v);
	return m;
}

static const char *const inject_mode_names[] = { "hold", "mark", "off" };

/* ---------------------------------------------------------------- the database */

int
inject_store(struct db *db, const char *library_id, long long snippet_id,
    const struct inject_verdict *v)
{
	size_t	 i;

	for (i = 0; i < v->n; i++)
		if (store_flag_put(db, snippet_id, library_id, v->hit[i].rule,
		    v->hit[i].excerpt) == -1)
			return -1;
	return 0;
}

long
inject_flagged_count(struct db *db, const char *library_id)
{
	long long	 n;

	return store_flags_snippets(db, library_id, &n) == 0 ? (long)n : -1;
}

/* Appends "rule n" to the buf arg, after ", " unless it is the first. */
static int
inject_join_rule(const char *rule, long long n, void *arg)
{
	struct buf	*b = arg;

	return buf_printf(b, "%s%s %lld", b->len > 0 ? ", " : "", rule, n) == -1 ? -1 : 0;
}

/* Appends a place to the buf arg, after ", " unless it is the first. */
static int
inject_join_place(const char *place, void *arg)
{
	struct buf	*b = arg;

	return buf_printf(b, "%s%s", b->len > 0 ? ", " : "", place) == -1 ? -1 : 0;
}

#define INJECT_REPORT_SOURCES	3

void
inject_report(struct db *db, long long job_id, const char *library_id)
{
	struct buf	 rules, where;
	long		 n;

	buf_init(&rules);
	buf_init(&where);
	if ((n = inject_flagged_count(db, library_id)) <= 0) {
		if (n == 0)
			jobs_log(db, job_id, "info", "content check: no snippet "
			    "flagged");
		goto out;
	}
	if (store_flags_rules(db, library_id, inject_join_rule, &rules) == -1 ||
	    store_flags_places(db, library_id, INJECT_REPORT_SOURCES, inject_join_place,
	    &where) == -1) {
		log_err("%s: %s: the flags could not be read", __func__, library_id);
		goto out;
	}
	jobs_log(db, job_id, "warning", "content check: %ld snippet%s flagged as "
	    "addressed to AI agents (%s), in %s%s; content.injection is %s "
	    "(GET /api/libraries%s/flagged lists them)", n, n == 1 ? "" : "s",
	    rules.p ? rules.p : "", where.p ? where.p : "",
	    n > INJECT_REPORT_SOURCES ? ", ..." : "",
	    inject_mode_names[inject_mode_get(db)], library_id);
out:
	buf_release(&rules);
	buf_release(&where);
}

static json_object *
inject_jstr(const char *t)
{
	return json_object_new_string(t != NULL ? t : "");
}

/* Adds a flag to the JSON array arg (GET /api/libraries/{id}/flagged). */
static int
inject_list_row(const struct store_flag_row *r, void *arg)
{
	json_object	*a = arg, *e;
	char		*src;

	e = json_object_new_object();
	json_object_object_add(e, "snippetId", json_object_new_int64(r->snippet_id));
	json_object_object_add(e, "title", inject_jstr(r->title));
	src = format_source_of(r->url, r->blob_prefix, r->indexed_commit, r->path,
	    r->anchor);
	json_object_object_add(e, "source", json_object_new_string(src != NULL ? src : ""));
	free(src);
	json_object_object_add(e, "rule", inject_jstr(r->rule));
	json_object_object_add(e, "excerpt", inject_jstr(r->excerpt));
	json_object_array_add(a, e);
	return 0;
}

int
inject_list(struct db *db, const char *library_id, long limit, long offset,
    json_object **out)
{
	struct store_library l;
	json_object	*o = NULL, *a;
	long long	 total;

	*out = NULL;
	if (store_library_load(db, library_id, &l) == -1)
		return -1;
	if (!l.exists)
		return 0;
	store_library_release(&l);
	o = json_object_new_object();
	json_object_object_add(o, "libraryId", json_object_new_string(library_id));
	json_object_object_add(o, "mode",
	    json_object_new_string(inject_mode_names[inject_mode_get(db)]));
	if (store_flags_total(db, library_id, &total) == -1)
		goto err;
	json_object_object_add(o, "total", json_object_new_int64(total));
	a = json_object_new_array();
	json_object_object_add(o, "limit", json_object_new_int64(limit));
	json_object_object_add(o, "offset", json_object_new_int64(offset));
	json_object_object_add(o, "flagged", a);
	if (store_flags_list(db, library_id, limit, offset, inject_list_row, a) == -1)
		goto err;
	*out = o;
	return 1;
err:
	json_object_put(o);
	return -1;
}

int
inject_catalog(struct db *db, const char *library_id, json_object *o)
{
	long	 n;

	if ((n = inject_flagged_count(db, library_id)) < 0)
		return -1;
	json_object_object_add(o, "flagged", json_object_new_int64(n));
	json_object_object_add(o, "held", json_object_new_int64(
	    inject_mode_get(db) == INJECT_HOLD ? n : 0));
	return 0;
}
