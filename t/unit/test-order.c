/*
 * test-order.c: prose and code keep their document order in a snippet:
 * the section builder records where each code block stands in the section's text, and
 * the text answer puts it there, right after the sentence that introduces it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "doc-helpers.h"
#include "parse/parse.h"
#include "search/format.h"
#include "tap.h"

/* requests' docs/user/advanced.rst, the Timeouts section (corpus requests.bundle). */
static const char requests_timeouts[] =
	"Timeouts\n"
	"--------\n"
	"\n"
	"Most requests to external servers should have a timeout attached, in case the\n"
	"server is not responding in a timely manner. By default, requests do not time\n"
	"out unless a timeout value is set explicitly. Without a timeout, your code may\n"
	"hang for minutes or more.\n"
	"\n"
	"The **connect** timeout is the number of seconds Requests will wait for your\n"
	"client to establish a connection to a remote machine (corresponding to the\n"
	"`connect()`_) call on the socket. It's a good practice to set connect timeouts\n"
	"to slightly larger than a multiple of 3, which is the default `TCP packet\n"
	"retransmission window <https://datatracker.ietf.org/doc/html/rfc2988>`_.\n"
	"\n"
	"Once your client has connected to the server and sent the HTTP request, the\n"
	"**read** timeout is the number of seconds the client will wait for the server\n"
	"to send a response. (Specifically, it's the number of seconds that the client\n"
	"will wait *between* bytes sent from the server. In 99.9% of cases, this is the\n"
	"time before the server sends the first byte).\n"
	"\n"
	"If you specify a single value for the timeout, like this::\n"
	"\n"
	"    r = requests.get('https://github.com', timeout=5)\n"
	"\n"
	"The timeout value will be applied to both the ``connect`` and the ``read``\n"
	"timeouts. Specify a tuple if you would like to set the values separately::\n"
	"\n"
	"    r = requests.get('https://github.com', timeout=(3.05, 27))\n"
	"\n"
	"If the remote server is very slow, you can tell Requests to wait forever for\n"
	"a response, by passing None as a timeout value and then retrieving a cup of\n"
	"coffee.\n"
	"\n"
	"::\n"
	"\n"
	"    r = requests.get('https://github.com', timeout=None)\n"
	"\n"
	;

/* A Markdown section alternating list, code, table and code. */
static const char md_mixed[] =
	"# Setup\n\n"
	"Install it:\n\n"
	"- with npm\n"
	"- or with yarn\n\n"
	"```sh\nnpm install x\n```\n\n"
	"| option | meaning |\n|---|---|\n| a | b |\n\n"
	"Then run:\n\n"
	"```sh\nx serve\n```\n";

/* The text answer of section s, as search would print it; caller frees. */
static char *
answer(const struct doc_section *s)
{
	struct snippet	 sn;
	struct buf	 b;

	memset(&sn, 0, sizeof(sn));
	sn.title = s->title;
	sn.breadcrumb = s->breadcrumb;
	sn.source = "https://example.com/x";
	sn.text = s->text;
	sn.code = s->code;
	sn.ncode = s->ncode;
	buf_init(&b);
	if (format_text(&b, &sn, 1) == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* ok when the strings want[0..n) occur in a in this order. */
static void
in_order(const char *a, const char *const *want, size_t n, const char *name)
{
	const char	*p = a, *q;
	size_t		 i;

	for (i = 0; i < n; i++) {
		if ((q = strstr(p, want[i])) == NULL) {
			ok(0, "%s: \"%s\" after \"%s\"", name, want[i],
			    i > 0 ? want[i - 1] : "start");
			return;
		}
		p = q + strlen(want[i]);
	}
	ok(1, "%s: in document order", name);
}

static void
test_requests_timeouts(void)
{
	static const char *const want[] = {
		"like this:", "timeout=5)",
		"set the values separately:", "timeout=(3.05, 27))",
		"cup of coffee.", "timeout=None)",
	};
	const struct doc_section *s;
	struct doc	 d;
	char		*a;

	if (parse("docs/user/advanced.rst", requests_timeouts, &d) == -1)
		return;
	if ((s = sec(&d, "Timeouts")) == NULL || s->ncode != 3) {
		ok(0, "Timeouts: one section with three code blocks");
		doc_release(&d);
		return;
	}
	ok(s->code[0].at < s->code[1].at && s->code[1].at < s->code[2].at &&
	    s->code[2].at == strlen(s->text), "Timeouts: offsets rise, the last at the end");
	ok(strncmp(s->text + s->code[0].at - 5, "this:", 5) == 0,
	    "Timeouts: the first block stands after its introducing sentence");
	if ((a = answer(s)) != NULL)
		in_order(a, want, sizeof(want) / sizeof(want[0]), "Timeouts");
	free(a);
	doc_release(&d);
}

static void
test_markdown_mixed(void)
{
	static const char *const want[] = {
		"Install it:\n\n- with npm\n- or with yarn\n\n```sh\nnpm install x\n```",
		"option | meaning\na | b\n\nThen run:\n\n```sh\nx serve\n```",
	};
	const struct doc_section *s;
	struct doc	 d;
	char		*a;

	if (parse("README.md", md_mixed, &d) == -1)
		return;
	if ((s = sec(&d, "Setup")) == NULL || s->ncode != 2) {
		ok(0, "Setup: one section with two code blocks");
		doc_release(&d);
		return;
	}
	if ((a = answer(s)) != NULL)
		in_order(a, want, sizeof(want) / sizeof(want[0]), "Setup");
	free(a);
	doc_release(&d);
}

/* A snippet stored before offsets were kept (at DOC_CODE_AFTER): code after the prose. */
static void
test_old_rows(void)
{
	struct doc_code	 c[] = { { "sh", "make", DOC_CODE_AFTER } };
	struct snippet	 sn;
	struct buf	 b;

	memset(&sn, 0, sizeof(sn));
	sn.title = "T";
	sn.source = "u";
	sn.text = "One.\n\nTwo.";
	sn.code = c;
	sn.ncode = 1;
	buf_init(&b);
	is_int(format_text(&b, &sn, 1), 0, "format_text");
	is_str(b.p, "### T\n\nSource: u\n\nOne.\n\nTwo.\n\n```sh\nmake\n```",
	    "old rows: code after the prose");
	buf_reset(&b);
	c[0].at = 4;
	is_int(format_text(&b, &sn, 1), 0, "format_text");
	is_str(b.p, "### T\n\nSource: u\n\nOne.\n\n```sh\nmake\n```\n\nTwo.",
	    "offset 4: code between the paragraphs");
	buf_release(&b);
}

int
main(void)
{
	test_requests_timeouts();
	test_markdown_mixed();
	test_old_rows();
	return tap_done();
}
