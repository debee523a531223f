// checks.test.mjs: the checks of the UI's forms (htdocs/js/forms/checks.js) without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as c from "../../htdocs/js/forms/checks.js";

test("checkUrl: http(s) URLs without credentials", () => {
	assert.equal(c.checkUrl("https://github.com/acme/demo"), null);
	assert.equal(c.checkUrl("http://127.0.0.1:8080/x.git"), null);
	assert.equal(c.checkUrl(""), "Required.");
	assert.equal(c.checkUrl("github.com/acme/demo"), "This is not a URL.");
	assert.equal(c.checkUrl("ftp://example.com/x"), "Must be an http or https URL.");
	assert.match(c.checkUrl("https://user:secret@example.com/x"), /credentials/);
	assert.match(c.checkUrl("https://example.com/" + "a".repeat(c.URL_MAX)), /At most 2048/);
});

test("checkUrl: an llms.txt source names an llms file", () => {
	assert.equal(c.checkUrl("https://example.com/llms.txt", "llmstxt"), null);
	assert.equal(c.checkUrl("https://example.com/docs/llms-full.txt", "llmstxt"), null);
	assert.match(c.checkUrl("https://example.com/index.html", "llmstxt"), /llms.txt/);
});

test("checkText counts characters, not bytes", () => {
	assert.equal(c.checkText(3)("äöü"), null);
	assert.equal(c.checkText(3)("😀😀😀"), null);
	assert.match(c.checkText(3)("abcd"), /At most 3/);
});

test("checkBranch: git's branch name rules", () => {
	for (const ok of ["", "main", "release/1.x", "v2"])
		assert.equal(c.checkBranch(ok), null, ok);
	for (const bad of ["-x", "/x", "a..b", "a//b", "x/", "x.lock", "a b", "a~b", "a^b", "a:b", "a?b", "a*b", "a[b", "a\\b"])
		assert.ok(c.checkBranch(bad), bad);
});

test("lines and checkList: one trimmed entry a line, no '..' or '\\\\'", () => {
	assert.deepEqual(c.lines(" docs \n\n guide\n"), ["docs", "guide"]);
	assert.equal(c.checkList("docs\nsrc/guide"), null);
	assert.match(c.checkList("../etc"), /no '\.\.'/);
	assert.match(c.checkList("a\\b"), /no '\.\.'/);
	assert.match(c.checkList(Array(c.LIST_MAX + 1).fill("d").join("\n")), /At most 100 entries/);
});

test("checkInt: whole numbers in bounds, empty allowed", () => {
	const pages = c.checkInt(1, c.MAX_PAGES);
	assert.equal(pages(""), null);
	assert.equal(pages("50"), null);
	assert.ok(pages("0"));
	assert.ok(pages("1.5"));
	assert.ok(pages("-3"));
	assert.ok(pages(String(c.MAX_PAGES + 1)));
});

test("checkSpaceKey and checkPageUrls", () => {
	assert.equal(c.checkSpaceKey("DOCS"), null);
	assert.equal(c.checkSpaceKey("~jdoe"), null);
	assert.ok(c.checkSpaceKey("a b"));
	assert.equal(c.checkPageUrls("https://wiki.example.com/x\nhttps://wiki.example.com/y"), null);
	assert.match(c.checkPageUrls("https://wiki.example.com/x\nnot a url"), /"not a url": This is not a URL/);
});

test("checkNewPassword: typed twice, 10 to 1024 characters, not the user name", () => {
	assert.equal(c.checkNewPassword("correct horse", "correct horse", "mia"), null);
	assert.match(c.checkNewPassword("correct horse", "correct horsE", "mia"), /differ/);
	assert.match(c.checkNewPassword("short", "short", "mia"), /10 to 1024/);
	assert.match(c.checkNewPassword("administrator", "administrator", "administrator"), /user name/);
});

test("aiSettingShown: the AI fields follow the vendors' choiceTakes", () => {
	const takes = { openai: ["api_key"], bedrock: ["api_key", "region", "base_url"],
	    custom: ["api_key", "base_url"], vendorx: ["api_key", "region"] };
	const v = (llm, embed) => ({ "ai.llm.provider": llm, "ai.embed.provider": embed });
	assert.equal(c.aiSettingShown("upstream.url", v("openai", "same"), takes), undefined);
	// No LLM: neither its key nor its model.
	assert.equal(c.aiSettingShown("ai.llm.api_key", v("", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.llm.model", v("", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.llm.api_key", v("openai", "same"), takes), true);
	assert.equal(c.aiSettingShown("ai.llm.region", v("openai", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.llm.region", v("bedrock", "same"), takes), true);
	assert.equal(c.aiSettingShown("ai.llm.base_url", v("custom", "same"), takes), true);
	assert.equal(c.aiSettingShown("ai.llm.base_url", v("openai", "same"), takes), false);
	// A vendor the UI has never heard of is shown by what the server says it takes.
	assert.equal(c.aiSettingShown("ai.llm.region", v("vendorx", "same"), takes), true);
	// Embeddings "same": the key and endpoint are the LLM's; the region may differ.
	assert.equal(c.aiSettingShown("ai.embed.api_key", v("openai", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.embed.base_url", v("custom", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.embed.region", v("bedrock", "same"), takes), true);
	assert.equal(c.aiSettingShown("ai.embed.region", v("openai", "same"), takes), false);
	assert.equal(c.aiSettingShown("ai.embed.api_key", v("anthropic", "openai"), takes), true);
	assert.equal(c.aiSettingShown("ai.embed.base_url", v("openai", "bedrock"), takes), true);
	assert.equal(c.aiSettingShown("ai.embed.model", v("", "same"), takes), true);
});
