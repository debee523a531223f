/*
 * test-libname.c: lib/search/libname.c, a question without the words naming its library:
 * words of the id's name part and of the title, when rare in the library; the words
 * always left out; a word with other parts kept; a question of name words only asked whole.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/buf.h"
#include "search/libname.h"
#include "tap.h"

/* rare(): every word but "agent" and "twilio" (said in most of the library). */
static int
rare(const char *w, size_t n, void *arg)
{
	(void)arg;
	return !((n == 5 && strncasecmp(w, "agent", n) == 0) ||
	    (n == 6 && strncasecmp(w, "twilio", n) == 0));
}

/* The question as libname_strip leaves it ("=" when it is to be asked whole). */
static const char *
strip(const char *id, const char *title, const char *always, const char *q)
{
	static char	 out[512];
	struct buf	 b;
	int		 rc;

	buf_init(&b);
	rc = libname_strip(id, title, always, q, rare, NULL, &b);
	snprintf(out, sizeof(out), "%s", rc == 1 ? b.p : rc == 0 ? "=" : "error");
	if (rc == 0 && b.len != 0)
		snprintf(out, sizeof(out), "0 but not empty");
	buf_release(&b);
	return out;
}

int
main(void)
{
	const char *argo = "/openapi/example_com_argo_cd_assets_swagger";

	is_str(strip(argo, "Consolidate Services", NULL, "argo cd list applications endpoint"),
	    "list applications endpoint", "the id's words (argo, cd) are left out");
	is_str(strip(argo, "Consolidate Services", "api endpoint",
	    "Argo-CD's list applications endpoint?"), "list applications",
	    "case, punctuation, a possessive's s aside; and the words always left out");
	is_str(strip("/acme/payments", "Acme Pay", NULL, "acme pay: refund a charge"),
	    "refund a charge", "the title's words, and the id's name part's");
	is_str(strip("/acme/payments", "Acme Pay", NULL, "payments refund"), "refund",
	    "the name part of the id names it");
	is_str(strip("/expressjs/express", "Express", NULL, "express.static in Express 5"),
	    "express.static in 5", "an identifier with another part stays, a number is no name");
	is_str(strip("/1mcp/agent", "1MCP Agent", NULL, "how can an agent list 1mcp tools"),
	    "how can an agent list tools", "a name word the library says often stays");
	is_str(strip("/vercel/next.js/v14.3.0", "", NULL, "next.js v14 app router"),
	    "v14 app router", "a versioned id: its name part names it, not the version");
	is_str(strip("/tokio-rs/axum", "", NULL, "tokio axum handler"), "tokio handler",
	    "the owner does not name it");
	is_str(strip(argo, "", NULL, "argo cd"), "=", "only name words: asked whole");
	is_str(strip(argo, "", NULL, "the argo cd"), "the",
	    "stop words left are the caller's to judge (search asks it whole then)");
	is_str(strip(argo, "", NULL, "list clusters"), "=", "nothing to leave out: asked as is");
	is_str(strip("/x/cd", "", NULL, "cd c d to a folder"), "c d to a folder",
	    "parts of one character neither name nor count");
	return tap_done();
}
