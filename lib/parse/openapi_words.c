/*
 * openapi_words.c: the words an operation is found by (openapi_words), written into its
 * snippet as one "Keywords:" line. A question is worded as a task ("delete every droplet
 * tagged staging", "ban a member"), the spec names the operation by identifiers
 * (droplets_destroy_byTag, ban_user_from_guild), a path and a method: the line spells out
 * the verbs the HTTP method stands for, the words of the operationId, of the path's
 * segments (a {parameter}'s name too), of the tags and of the parameters' names, each word
 * once, in lower case. The tokenizer indexes identifiers whole and split already; the line
 * adds the method's verbs and gives the other words the weight of being said in words.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "parse/openapi_words.h"

#define OPENAPI_WORDS_MAX	48	/* distinct words of one line */
#define OPENAPI_WORD_LEN	32	/* longer words are left out */

struct openapi_words {
	struct buf	*b;
	char		 seen[OPENAPI_WORDS_MAX][OPENAPI_WORD_LEN + 1];
	size_t		 n;
	int		 nomem;
};

/* Adds one word (n bytes, lower-cased here) unless it is there already or too long. */
static void
openapi_words_one(struct openapi_words *w, const char *s, size_t n)
{
	char	 word[OPENAPI_WORD_LEN + 1];
	size_t	 i;

	if (n == 0 || n > OPENAPI_WORD_LEN || w->n == OPENAPI_WORDS_MAX)
		return;
	for (i = 0; i < n && isdigit((unsigned char)s[i]); i++)
		;
	if (i == n)		/* a number: a version or a date, not a word */
		return;
	for (i = 0; i < n; i++)
		word[i] = (char)tolower((unsigned char)s[i]);
	word[n] = '\0';
	for (i = 0; i < w->n; i++)
		if (strcmp(w->seen[i], word) == 0)
			return;
	memcpy(w->seen[w->n++], word, n + 1);
	if ((w->n > 1 && buf_addc(w->b, ' ') == -1) || buf_add(w->b, word, n) == -1)
		w->nomem = 1;
}

/*
 * Adds the words of an identifier or a path: split on every byte that is not a letter or
 * a digit, and on camelCase ("byTag" -> by, tag; "HTTPServer" -> http, server).
 */
static void
openapi_words_split(struct openapi_words *w, const char *s)
{
	size_t	 i, start;

	if (s == NULL)
		return;
	for (i = 0; s[i] != '\0';) {
		if (!isalnum((unsigned char)s[i])) {
			i++;
			continue;
		}
		start = i++;
		while (isalnum((unsigned char)s[i])) {
			if (isupper((unsigned char)s[i]) && (islower((unsigned char)s[i - 1]) ||
			    isdigit((unsigned char)s[i - 1])))
				break;
			if (isupper((unsigned char)s[i]) && isupper((unsigned char)s[i - 1]) &&
			    islower((unsigned char)s[i + 1]))
				break;
			i++;
		}
		openapi_words_one(w, s + start, i - start);
	}
}

/*
 * Adds a tag's name without its version parts as one word, when it has some and two
 * other parts: "MessagingV1Service" -> messagingservice, so that "messaging service"
 * (the question's joined words) finds the operations of that resource.
 */
static void
openapi_words_unversioned(struct openapi_words *w, const char *s)
{
	char	 word[OPENAPI_WORD_LEN + 1];
	size_t	 i, start, n = 0, parts = 0;
	int	 versioned = 0, digit;

	if (s == NULL)
		return;
	for (i = 0; s[i] != '\0';) {
		if (!isalnum((unsigned char)s[i])) {
			i++;
			continue;
		}
		start = i;
		digit = isdigit((unsigned char)s[i++]) != 0;
		while (isalnum((unsigned char)s[i]) && !(isupper((unsigned char)s[i]) &&
		    !isupper((unsigned char)s[i - 1])) && !(isdigit((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i - 1]) && (s[i - 1] != 'v' && s[i - 1] != 'V')))
			digit |= isdigit((unsigned char)s[i++]) != 0;
		if (digit) {
			versioned = 1;
			continue;
		}
		if (n + (i - start) > OPENAPI_WORD_LEN)
			return;
		memcpy(word + n, s + start, i - start);
		n += i - start;
		parts++;
	}
	if (versioned && parts >= 2)
		openapi_words_one(w, word, n);
}

/*
 * 1 when the path segment s (n bytes, up to a '.' extension) stands for the caller: "me",
 * "@me", "self", "myself", "current" (/users/@me, /me, /users/self, /user/current).
 */
static int
openapi_words_self(const char *s, size_t n)
{
	static const char *const self[] = { "me", "@me", "self", "myself", "current", NULL };
	const char	*dot = memchr(s, '.', n);
	size_t		 i;

	if (dot != NULL && dot > s)
		n = (size_t)(dot - s);
	for (i = 0; self[i] != NULL; i++)
		if (strlen(self[i]) == n && strncasecmp(s, self[i], n) == 0)
			return 1;
	return 0;
}

/* 1 when a segment of path stands for the caller (openapi_words_self). */
static int
openapi_words_has_self(const char *path)
{
	const char	*s, *e;

	for (s = path; s != NULL && *s != '\0'; s = *e == '/' ? e + 1 : e) {
		for (e = s; *e != '\0' && *e != '/'; e++)
			;
		if (e > s && openapi_words_self(s, (size_t)(e - s)))
			return 1;
	}
	return 0;
}

/*
 * The verbs of an HTTP method; a GET of a collection lists, of an item (a {parameter} in
 * the last segment, as in /pets/{id} or /Calls/{Sid}.json, or the caller: /users/@me) gets.
 * Any GET reads, views, lets one see ("see which users are in a thread"), an item's gives
 * the details of a single one; a POST makes a new thing or opens one ("open a direct
 * message channel"). Verbs that a spec's own
 * summaries use to tell operations apart stay out: "send" on every POST lost "send an SMS"
 * its CreateMessage, "edit" on every PATCH "edit a message" its update_message
 * (bench/README.md, "API answers hold five").
 */
static const char *
openapi_words_verbs(const char *method, const char *path)
{
	const char	*last = NULL;
	size_t		 n = path != NULL ? strlen(path) : 0;

	while (n > 0 && path[n - 1] == '/')
		n--;
	if (n > 0)
		for (last = path + n; last > path && last[-1] != '/'; last--)
			;
	if (last != NULL && strcmp(method, "get") == 0 &&
	    openapi_words_self(last, (size_t)(path + n - last)))
		return "get fetch show read view see single details";
	if (strcmp(method, "delete") == 0)
		return "delete remove destroy";
	if (strcmp(method, "post") == 0)
		return "create add new start open";
	if (strcmp(method, "put") == 0 || strcmp(method, "patch") == 0)
		return "update change set replace";
	if (strcmp(method, "get") == 0)
		return last != NULL && memchr(last, '{', (size_t)(path + n - last)) != NULL ?
		    "get fetch show read view see single details" : "list get read view see";
	return NULL;
}

int
openapi_words(struct buf *b, const char *method, const char *path, const char *id,
    const char *const *tags, size_t ntags, const char *const *params, size_t nparams)
{
	struct openapi_words w;
	size_t		 i;

	memset(&w, 0, sizeof(w));
	w.b = b;
	openapi_words_split(&w, openapi_words_verbs(method, path));
	if (openapi_words_has_self(path))
		openapi_words_split(&w, "current my");
	openapi_words_split(&w, id);
	openapi_words_split(&w, path);
	for (i = 0; i < ntags; i++) {
		openapi_words_split(&w, tags[i]);
		openapi_words_unversioned(&w, tags[i]);
	}
	for (i = 0; i < nparams; i++)
		openapi_words_split(&w, params[i]);
	return w.nomem ? -1 : 0;
}
