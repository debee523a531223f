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
	const list = c.checkList(100, 255);
	assert.equal(list("docs\nsrc/guide"), null);
	assert.match(list("../etc"), /no '\.\.'/);
	assert.match(list("a\\b"), /no '\.\.'/);
	assert.match(list(Array(101).fill("d").join("\n")), /At most 100 entries/);
	assert.match(list("x".repeat(256)), /at most 255 characters/);
});

test("checkInt: whole numbers in bounds, empty allowed", () => {
	const pages = c.checkInt(1, 100000);
	assert.equal(pages(""), null);
	assert.equal(pages("50"), null);
	assert.ok(pages("0"));
	assert.ok(pages("1.5"));
	assert.ok(pages("-3"));
	assert.ok(pages("100001"));
});

test("checkSpaceKey and checkPageUrls", () => {
	assert.equal(c.checkSpaceKey("DOCS"), null);
	assert.equal(c.checkSpaceKey("~jdoe"), null);
	assert.ok(c.checkSpaceKey("a b"));
	const pages = c.checkPageUrls(2);
	assert.equal(pages("https://wiki.example.com/x\nhttps://wiki.example.com/y"), null);
	assert.match(pages("https://wiki.example.com/x\nnot a url"), /"not a url": This is not a URL/);
	assert.match(pages("https://a.example/x\nhttps://a.example/y\nhttps://a.example/z"), /At most 2 pages/);
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

test("sourceFields: the form's rows from the server's declaration of a type", () => {
	const type = { type: "website", url: "the start page", fields: [
	    { name: "type", type: "string", required: false, min: 1, max: 16 },
	    { name: "url", type: "string", label: "URL", required: false, min: 1, max: 30 },
	    { name: "repoUrl", type: "string", required: false, min: 1, max: 30 },
	    { name: "title", type: "string", label: "Title", required: false, min: 1, max: 5 },
	    { name: "maxDepth", type: "integer", label: "Maximum depth", min: 0, max: 7, default: 3,
	      doc: "how many links to follow" },
	    { name: "excludePatterns", type: "list", label: "Exclude patterns", min: 0, max: 2, elemMax: 4 },
	    { name: "spaceKey", type: "string", label: "Space key", required: true, min: 1, max: 9,
	      group: "A whole space" },
	    { name: "subs", type: "boolean", label: "Include sub-pages", group: "Some pages" }] };
	const rows = c.sourceFields(type);
	assert.deepEqual(rows.map((r) => r.name), ["url", "maxDepth", "excludePatterns", "spaceKey", "subs", "title"],
	    "the URL first, the title last, no type or repoUrl");
	const by = Object.fromEntries(rows.map((r) => [r.name, r]));
	assert.equal(by.url.label, "URL");
	assert.equal(by.url.help, "The start page.");
	assert.match(by.url.check("https://example.com/" + "x".repeat(20)), /At most 30 characters/,
	    "the URL's bound is the server's");
	assert.equal(by.title.label, "Title (optional)");
	assert.match(by.title.check("abcdef"), /At most 5/);
	assert.equal(by.maxDepth.kind, "number");
	assert.match(by.maxDepth.help, /^How many links to follow\. From 0 to 7; 3 when empty\.$/);
	assert.match(by.maxDepth.check("8"), /from 0 to 7/);
	assert.match(by.excludePatterns.check("a\nb\nc"), /At most 2/);
	assert.match(by.excludePatterns.check("abcde"), /at most 4 characters/);
	assert.equal(by.spaceKey.label, "Space key", "a field asked in its group is not optional");
	assert.equal(by.spaceKey.check(""), "Required.");
	assert.equal(by.spaceKey.group, "A whole space");
	assert.equal(by.subs.kind, "check");
	assert.equal(by.subs.label, "Include sub-pages");
});

test("readWithCredentials: the instance's credential a new source would be read with", () => {
	const set = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === "boolean" ? { set: v } : { value: v }]));
	const st = set({ "git.github.host": "github.com", "git.github.token": true, "git.gitlab.host": "git.example.org:8443",
	    "git.gitlab.token": true, "wiki.token": false });
	assert.match(c.readWithCredentials("git", "https://github.com/acme/private", st), /GitHub token \(git\.github\.token\)/);
	assert.match(c.readWithCredentials("git", "https://GIT.example.org:8443/acme/x.git", st), /GitLab token/);
	assert.equal(c.readWithCredentials("git", "https://git.example.org/acme/x.git", st), null, "another port is another host");
	assert.equal(c.readWithCredentials("git", "https://codeberg.org/acme/x", st), null, "a host without a token");
	assert.equal(c.readWithCredentials("git", "not a url", st), null);
	assert.equal(c.readWithCredentials("website", "https://github.com/acme/private", st), null, "a website is read without credentials");
	assert.equal(c.readWithCredentials("wiki", "", st), null, "no wiki token");
	assert.match(c.readWithCredentials("wiki", "", set({ "wiki.token": true })), /wiki\.token/);
	assert.match(c.readWithCredentials("git", "https://github.com/a/b", set({ "git.github.app_private_key": true })), /GitHub App/);
	assert.equal(c.readWithCredentials("git", "https://github.com/a/b", {}), null, "no settings, no token");
});
