/*
 * docbuild.c: the section builder the parsers share (doc.h): their headings, prose and code
 * blocks grouped into sections with unique anchors, long ones split, breadcrumbs made once the
 * title is known; the input cleaning and slugs they use.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "base/buf.h"
#include "base/log.h"
#include "base/util.h"
#include "parse/doc.h"
#include "parse/parse.h"

/* The file name of path (after its last '/'); "" for NULL. */
const char *
doc_basename(const char *path)
{
	const char	*s;

	if (path == NULL)
		return "";
	s = strrchr(path, '/');
	return s != NULL ? s + 1 : path;
}

void
doc_squeeze(char *s)
{
	char	*r, *w;
	int	 sp = 0;

	for (r = w = s; *r != '\0'; r++) {
		if (isspace((unsigned char)*r)) {
			sp = 1;
			continue;
		}
		if (sp && w != s)
			*w++ = ' ';
		sp = 0;
		*w++ = *r;
	}
	*w = '\0';
}

char *
doc_clean_input(const char *data, size_t len, size_t *outlen)
{
	const unsigned char	*p = (const unsigned char *)data;
	struct buf		 b;
	size_t			 i = 0, n;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		goto fail;
	if (len >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf)
		i = 3;
	while (i < len) {
		if (p[i] == '\r') {
			if (buf_addc(&b, '\n') == -1)
				goto fail;
			i += (i + 1 < len && p[i + 1] == '\n') ? 2 : 1;
			continue;
		}
		if (p[i] == '\0') {
			if (buf_addc(&b, ' ') == -1)
				goto fail;
			i++;
			continue;
		}
		if ((n = util_utf8_len(p + i, len - i)) == 0) {
			/* U+FFFD, as util_utf8_repair: the index holds UTF-8 only */
			if (buf_add(&b, "\xef\xbf\xbd", 3) == -1)
				goto fail;
			i++;
			continue;
		}
		if (buf_add(&b, p + i, n) == -1)
			goto fail;
		i += n;
	}
	*outlen = b.len;
	return buf_detach(&b);
fail:
	log_err("%s: out of memory", __func__);
	buf_release(&b);
	return NULL;
}

char *
doc_slug(const char *heading)
{
	struct buf	 b;
	const char	*s;
	unsigned char	 c;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		goto fail;
	for (s = heading; s != NULL && *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c >= 0x80 || isalnum(c) || c == '-' || c == '_')
			c = (unsigned char)tolower(c);
		else if (c == ' ')
			c = '-';
		else
			continue;
		if (buf_addc(&b, (char)c) == -1)
			goto fail;
	}
	return buf_detach(&b);
fail:
	log_err("%s: out of memory", __func__);
	buf_release(&b);
	return NULL;
}

void
doc_release(struct doc *d)
{
	size_t	 i, j;

	if (d == NULL)
		return;
	for (i = 0; i < d->nsecs; i++) {
		free(d->secs[i].title);
		free(d->secs[i].breadcrumb);
		free(d->secs[i].anchor);
		free(d->secs[i].text);
		for (j = 0; j < d->secs[i].ncode; j++) {
			free(d->secs[i].code[j].lang);
			free(d->secs[i].code[j].code);
		}
		free(d->secs[i].code);
	}
	free(d->secs);
	free(d->title);
	memset(d, 0, sizeof(*d));
}

/* ---------------------------------------------------------------- section builder */

int
doc_build_init(struct docb *b, struct doc *d, struct doc_poll *poll)
{
	memset(b, 0, sizeof(*b));
	memset(d, 0, sizeof(*d));
	b->doc = d;
	b->poll = poll;
	if (poll != NULL)
		poll->stopped = 0;
	buf_init(&b->text);
	if ((b->title = strdup("")) == NULL || (b->anchor = strdup("")) == NULL ||
	    (b->crumb = strdup("")) == NULL) {
		log_err("%s: out of memory", __func__);
		doc_build_release(b);
		return -1;
	}
	return 0;
}

int
doc_build_poll(struct docb *b)
{
	struct doc_poll	*p = b->poll;
	struct timespec	 ts;
	long long	 now;

	if (b->stopped)
		return -1;
	if (p == NULL)
		return 0;
	if (p->test_sleep_us > 0) {
		ts.tv_sec = p->test_sleep_us / 1000000;
		ts.tv_nsec = (p->test_sleep_us % 1000000) * 1000;
		nanosleep(&ts, NULL);
	} else if (++b->pollcount % DOC_POLL_EVERY != 0)
		return 0;
	now = util_now_ms();
	if (p->last_ms != 0 && now - p->last_ms < DOC_POLL_MS)
		return 0;
	p->last_ms = now;
	if (p->fn != NULL && (p->stopped = p->fn(p->arg)) != 0) {
		b->stopped = 1;
		return -1;
	}
	return 0;
}

static void
doc_build_free_open(struct docb *b)
{
	size_t	 i;

	for (i = 0; i < b->ncode; i++) {
		free(b->code[i].lang);
		free(b->code[i].code);
	}
	free(b->code);
	b->code = NULL;
	b->ncode = b->capcode = 0;
	b->codebytes = 0;
	buf_reset(&b->text);
	b->lastkind = DOCB_PARA;
	b->lastblk_off = 0;
	b->lastblk_ncode = 0;
}

void
doc_build_release(struct docb *b)
{
	size_t	 i;

	doc_build_free_open(b);
	buf_release(&b->text);
	for (i = 0; i < 7; i++)
		free(b->trail[i]);
	for (i = 0; i < b->slugcap; i++)
		free(b->slugs[i].s);
	free(b->slugs);
	free(b->title);
	free(b->anchor);
	free(b->crumb);
	free(b->first_h1);
	memset(b, 0, sizeof(*b));
}

size_t
doc_build_size(const struct docb *b)
{
	return b->text.len + b->codebytes;
}

/*
 * Text with trailing blanks of every line removed and at most one blank line in a row.
 * The offsets of the ncode code blocks (at, in s; non-decreasing) are moved to the same
 * place in the result: a block before a line stays before it.
 */
static char *
doc_build_tidy(const char *s, struct doc_code *code, size_t ncode)
{
	struct buf	 b;
	const char	*eol, *s0 = s;
	size_t		 n, c = 0;
	int		 blanks = 0;

	buf_init(&b);
	if (buf_add(&b, "", 0) == -1)
		return NULL;
	while (*s != '\0') {
		for (; c < ncode && code[c].at <= (size_t)(s - s0); c++)
			code[c].at = b.len;
		eol = strchr(s, '\n');
		n = eol != NULL ? (size_t)(eol - s) : strlen(s);
		while (n > 0 && isspace((unsigned char)s[n - 1]))
			n--;
		if (n == 0)
			blanks++;
		else {
			if (b.len > 0 && buf_adds(&b, blanks ? "\n\n" : "\n") == -1)
				goto fail;
			if (buf_add(&b, s, n) == -1)
				goto fail;
			blanks = 0;
		}
		if (eol == NULL)
			break;
		s = eol + 1;
	}
	for (; c < ncode; c++)
		code[c].at = b.len;
	return buf_detach(&b);
fail:
	buf_release(&b);
	return NULL;
}

/* Moves the open section into the document (dropped when empty); keeps title/anchor. */
static int
doc_build_flush(struct docb *b)
{
	struct doc		*d = b->doc;
	struct doc_section	*s, *ns;
	char			*text = NULL;
	size_t			 ncap;

	if (b->text.len == 0 && b->ncode == 0)
		return 0;
	if ((text = doc_build_tidy(b->text.p != NULL ? b->text.p : "", b->code,
	    b->ncode)) == NULL)
		goto fail;
	if (*text == '\0' && b->ncode == 0) {
		free(text);
		doc_build_free_open(b);
		return 0;
	}
	if (d->nsecs == b->capsecs) {
		ncap = b->capsecs ? b->capsecs * 2 : 8;
		if ((ns = reallocarray(d->secs, ncap, sizeof(*ns))) == NULL)
			goto fail;
		d->secs = ns;
		b->capsecs = ncap;
	}
	s = &d->secs[d->nsecs];
	memset(s, 0, sizeof(*s));
	if ((s->title = strdup(b->title)) == NULL ||
	    (s->anchor = strdup(b->anchor)) == NULL ||
	    (s->breadcrumb = strdup(b->crumb)) == NULL) {
		free(s->title);
		free(s->anchor);
		goto fail;
	}
	s->level = b->level;
	s->text = text;
	s->code = b->code;
	s->ncode = b->ncode;
	d->nsecs++;
	b->code = NULL;
	b->ncode = b->capcode = 0;
	doc_build_free_open(b);
	return 0;
fail:
	free(text);
	log_err("%s: out of memory", __func__);
	return -1;
}

/* FNV-1a of s. */
static size_t
doc_slug_hash(const char *s)
{
	size_t	 h = (size_t)1469598103934665603ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= (size_t)1099511628211ULL;
	}
	return h;
}

/* The slot of s in the anchor set: its own when s is in use, else the empty one for it. */
static struct docb_slug *
doc_slug_slot(struct docb *b, const char *s)
{
	size_t	 i = doc_slug_hash(s) & (b->slugcap - 1);

	while (b->slugs[i].s != NULL && strcmp(b->slugs[i].s, s) != 0)
		i = (i + 1) & (b->slugcap - 1);
	return &b->slugs[i];
}

/* Adds s (taken over) to the anchor set, which it is not in; -1 (s freed) on failure. */
static int
doc_slug_add(struct docb *b, char *s)
{
	struct docb_slug	*old = b->slugs, *e;
	size_t			 oldcap = b->slugcap, i;

	if ((b->nslugs + 1) * 2 > b->slugcap) {
		b->slugcap = oldcap ? oldcap * 2 : 64;
		if ((b->slugs = calloc(b->slugcap, sizeof(*b->slugs))) == NULL) {
			b->slugs = old;
			b->slugcap = oldcap;
			free(s);
			return -1;
		}
		for (i = 0; i < oldcap; i++)
			if (old[i].s != NULL)
				*doc_slug_slot(b, old[i].s) = old[i];
		free(old);
	}
	e = doc_slug_slot(b, s);
	e->s = s;
	e->next = 1;
	b->nslugs++;
	return 0;
}

/*
 * Makes slug unique among the anchors of the document (GitHub: slug, slug-1, ...): the
 * set of anchors in use remembers per anchor the next suffix to try, so that n repeats
 * of a heading cost n lookups, not n squared. Takes over slug; returns the anchor.
 */
static char *
doc_build_unique(struct docb *b, char *slug)
{
	struct buf	 cand;
	char		*dup = NULL;
	size_t		 k;

	buf_init(&cand);
	if (b->slugcap == 0 || doc_slug_slot(b, slug)->s == NULL) {
		if ((dup = strdup(slug)) == NULL || doc_slug_add(b, dup) == -1)
			goto fail;
		return slug;
	}
	for (k = doc_slug_slot(b, slug)->next;; k++) {
		buf_reset(&cand);
		if (buf_printf(&cand, "%s-%zu", slug, k) == -1)
			goto fail;
		if (doc_slug_slot(b, cand.p)->s == NULL)
			break;
	}
	doc_slug_slot(b, slug)->next = k + 1;
	if ((dup = strdup(cand.p)) == NULL || doc_slug_add(b, dup) == -1)
		goto fail;
	free(slug);
	return buf_detach(&cand);
fail:
	free(slug);
	buf_release(&cand);
	return NULL;
}

/* Cuts s to DOC_TITLE_MAX bytes at a character boundary, in place. */
static void
doc_cut_title(char *s)
{
	if (strlen(s) > DOC_TITLE_MAX) {
		s[DOC_TITLE_MAX] = '\0';
		util_utf8_trim(s);
	}
}

int
doc_build_heading(struct docb *b, int level, const char *title)
{
	return doc_build_heading_anchor(b, level, title, NULL);
}

int
doc_build_heading_anchor(struct docb *b, int level, const char *title, const char *want)
{
	struct buf	 crumb;
	char		*t = NULL, *slug;
	int		 i, opening;

	buf_init(&crumb);
	if (level < 1)
		level = 1;
	if (level > 6)
		level = 6;
	opening = b->nheadings++ == 0 && b->doc->nsecs == 0 && doc_build_size(b) == 0;
	if (doc_build_flush(b) == -1)
		return -1;
	if ((t = strdup(title)) == NULL)
		goto fail;
	doc_squeeze(t);
	doc_cut_title(t);
	if (level == 1 && opening && *t != '\0' && (b->first_h1 = strdup(t)) == NULL)
		goto fail;
	free(b->trail[level]);
	b->trail[level] = t;
	t = NULL;
	for (i = level + 1; i < 7; i++) {
		free(b->trail[i]);
		b->trail[i] = NULL;
	}
	if (buf_add(&crumb, "", 0) == -1)
		goto fail;
	for (i = 1; i <= level; i++) {
		if (b->trail[i] == NULL || *b->trail[i] == '\0')
			continue;
		if ((crumb.len > 0 && buf_adds(&crumb, " > ") == -1) ||
		    buf_adds(&crumb, b->trail[i]) == -1)
			goto fail;
	}
	slug = want != NULL ? strdup(want) : doc_slug(b->trail[level]);
	if (slug == NULL)
		goto fail;
	doc_cut_title(slug);
	if ((slug = doc_build_unique(b, slug)) == NULL)
		goto fail;
	free(b->anchor);
	b->anchor = slug;
	free(b->title);
	if ((b->title = strdup(b->trail[level])) == NULL)
		goto fail;
	free(b->crumb);
	b->crumb = buf_detach(&crumb);
	b->level = level;
	return 0;
fail:
	free(t);
	buf_release(&crumb);
	log_err("%s: out of memory", __func__);
	return -1;
}

/* Splits the open section before a block of n bytes when it would grow too long. */
static int
doc_build_maybe_split(struct docb *b, size_t n, size_t limit)
{
	size_t	 cur = doc_build_size(b);

	if (cur >= DOC_SPLIT_MIN && cur + n > limit)
		return doc_build_flush(b);
	return 0;
}

int
doc_build_text(struct docb *b, const char *s, size_t n, enum docb_kind kind)
{
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && *s == '\n') {
		s++;
		n--;
	}
	if (n == 0)
		return 0;
	if (doc_build_maybe_split(b, n, DOC_SPLIT_BYTES) == -1)
		return -1;
	b->lastblk_off = b->text.len;
	b->lastblk_ncode = b->ncode;
	if (b->text.len > 0 && buf_adds(&b->text,
	    kind == DOCB_ITEM && b->lastkind == DOCB_ITEM ? "\n" : "\n\n") == -1)
		goto fail;
	if (buf_add(&b->text, s, n) == -1)
		goto fail;
	b->lastkind = kind;
	return 0;
fail:
	log_err("%s: out of memory", __func__);
	return -1;
}

/*
 * Splits the open section before a code block of n bytes when it would grow past twice
 * DOC_SPLIT_BYTES. When the last thing added was a prose block, that block introduces
 * the code: it moves into the new part (no split when it is all the part holds).
 */
static int
doc_build_split_code(struct docb *b, size_t n)
{
	char		*intro = NULL;
	const char	*p;
	enum docb_kind	 kind = b->lastkind;
	size_t		 cur = doc_build_size(b);
	int		 rc = -1;

	if (cur < DOC_SPLIT_MIN || cur + n <= 2 * DOC_SPLIT_BYTES)
		return 0;
	if (b->text.len > 0 && b->ncode == b->lastblk_ncode &&
	    b->lastblk_off <= b->text.len) {
		if (b->lastblk_off == 0 && b->ncode == 0)
			return 0;
		p = b->text.p + b->lastblk_off;
		while (*p == '\n')
			p++;
		if ((intro = strdup(p)) == NULL)
			goto fail;
		b->text.len = b->lastblk_off;
		b->text.p[b->text.len] = '\0';
	}
	if (doc_build_flush(b) == -1)
		goto out;
	if (intro != NULL) {
		if (buf_adds(&b->text, intro) == -1)
			goto fail;
		b->lastkind = kind;
		b->lastblk_off = 0;
		b->lastblk_ncode = 0;
	}
	rc = 0;
	goto out;
fail:
	log_err("%s: out of memory", __func__);
out:
	free(intro);
	return rc;
}

int
doc_build_code(struct docb *b, const char *lang, const char *s, size_t n)
{
	struct doc_code	*nc;
	char		*l = NULL, *c = NULL;

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	while (n > 0 && *s == '\n') {
		s++;
		n--;
	}
	if (n == 0)
		return 0;
	/* Code stays next to the prose that introduces it unless it is very long. */
	if (doc_build_split_code(b, n) == -1)
		return -1;
	if ((l = strdup(lang != NULL ? lang : "")) == NULL ||
	    (c = strndup(s, n)) == NULL)
		goto fail;
	if (b->ncode == b->capcode) {
		if ((nc = reallocarray(b->code, b->capcode ? b->capcode * 2 : 4,
		    sizeof(*nc))) == NULL)
			goto fail;
		b->code = nc;
		b->capcode = b->capcode ? b->capcode * 2 : 4;
	}
	b->code[b->ncode].lang = l;
	b->code[b->ncode].code = c;
	b->code[b->ncode].at = b->text.len;
	b->ncode++;
	b->codebytes += n;
	return 0;
fail:
	free(l);
	free(c);
	log_err("%s: out of memory", __func__);
	return -1;
}

/* File name of path without its last extension (malloc'd). */
static char *
doc_stem(const char *path)
{
	const char	*base = doc_basename(path), *dot;

	dot = strrchr(base, '.');
	if (dot == NULL || dot == base)
		return strdup(base);
	return strndup(base, (size_t)(dot - base));
}

int
doc_build_finish(struct docb *b, const char *title, const char *path)
{
	struct doc	*d = b->doc;
	struct buf	 nb;
	size_t		 i;
	char		*first;
	size_t		 flen;

	buf_init(&nb);
	if (doc_build_flush(b) == -1)
		goto fail;
	if (title != NULL && *title != '\0')
		d->title = strdup(title);
	else if (b->first_h1 != NULL)
		d->title = strdup(b->first_h1);
	else
		d->title = doc_stem(path);
	if (d->title == NULL)
		goto nomem;
	doc_squeeze(d->title);
	doc_cut_title(d->title);
	for (i = 0; i < d->nsecs; i++) {
		struct doc_section *s = &d->secs[i];

		if (s->level == 0) {
			free(s->title);
			if ((s->title = strdup(d->title)) == NULL)
				goto nomem;
		}
		/* Prefix the page title unless the trail already starts with it. */
		first = s->breadcrumb;
		flen = strcspn(first, ">");
		while (flen > 0 && first[flen - 1] == ' ')
			flen--;
		if (*first != '\0' && flen == strlen(d->title) &&
		    strncmp(first, d->title, flen) == 0)
			continue;
		buf_reset(&nb);
		if (buf_adds(&nb, d->title) == -1 ||
		    (*first != '\0' && buf_printf(&nb, " > %s", first) == -1))
			goto nomem;
		free(s->breadcrumb);
		s->breadcrumb = buf_detach(&nb);
		s->titled = 1;
	}
	buf_release(&nb);
	doc_build_release(b);
	return 0;
nomem:
	log_err("%s: out of memory", __func__);
fail:
	buf_release(&nb);
	doc_build_release(b);
	return -1;
}

int
doc_retitle(struct doc *d, const char *title)
{
	struct doc_section *s;
	struct buf	 nb;
	char		*t, *old, *trail;
	size_t		 i, olen, tlen;

	if (title == NULL || *title == '\0')
		return 0;
	if ((t = strdup(title)) == NULL)
		goto nomem;
	doc_squeeze(t);
	doc_cut_title(t);
	if (*t == '\0' || (d->title != NULL && strcmp(t, d->title) == 0)) {
		free(t);
		return 0;
	}
	old = d->title != NULL ? d->title : "";
	olen = strlen(old);
	tlen = strlen(t);
	buf_init(&nb);
	for (i = 0; i < d->nsecs; i++) {
		s = &d->secs[i];
		if (s->level == 0 && s->title != NULL && strcmp(s->title, old) == 0) {
			free(s->title);
			if ((s->title = strdup(t)) == NULL)
				goto nomem_buf;
		}
		/* the heading trail, without the old title put before it */
		trail = s->breadcrumb != NULL ? s->breadcrumb : "";
		if (s->titled && strncmp(trail, old, olen) == 0)
			trail += olen;
		if (s->titled && strncmp(trail, " > ", 3) == 0)
			trail += 3;
		buf_reset(&nb);
		if (*trail != '\0' && strncmp(trail, t, tlen) == 0 &&
		    (trail[tlen] == '\0' || strncmp(trail + tlen, " >", 2) == 0)) {
			if (buf_adds(&nb, trail) == -1)
				goto nomem_buf;
			s->titled = 0;
		} else {
			if (buf_adds(&nb, t) == -1 ||
			    (*trail != '\0' && buf_printf(&nb, " > %s", trail) == -1))
				goto nomem_buf;
			s->titled = 1;
		}
		free(s->breadcrumb);
		s->breadcrumb = buf_detach(&nb);
	}
	buf_release(&nb);
	free(d->title);
	d->title = t;
	return 0;
nomem_buf:
	buf_release(&nb);
	free(t);
nomem:
	log_err("%s: out of memory", __func__);
	return -1;
}
