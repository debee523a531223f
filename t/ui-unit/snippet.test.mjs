// snippet.test.mjs: a snippet's body as the answer has it (htdocs/js/parts/snippet.js):
// prose and code in document order by byte offset, the Markdown's blocks and spans, the
// filter's matches.
import { test } from "node:test";
import assert from "node:assert/strict";
import { snippetParts, blocks, inline, matches } from "../../htdocs/js/parts/snippet.js";

test("code blocks stand where their byte offset falls in the prose", () => {
	const text = "Install it.\n\nThen call it.";
	const at = Buffer.byteLength("Install it.\n\n");
	const parts = snippetParts(text, [{ language: "sh", code: "pip install x", at }, { language: "py", code: "x()" }]);
	assert.deepEqual(parts, [
		{ kind: "prose", text: "Install it." },
		{ kind: "code", language: "sh", code: "pip install x" },
		{ kind: "prose", text: "Then call it." },
		{ kind: "code", language: "py", code: "x()" },
	]);
});

test("offsets count UTF-8 bytes, not UTF-16 units", () => {
	const text = "Grüße — café.\n\nAfter.";
	const at = Buffer.byteLength("Grüße — café.\n\n");
	const parts = snippetParts(text, [{ language: "js", code: "a", at }]);
	assert.equal(parts[0].text, "Grüße — café.");
	assert.equal(parts[2].text, "After.");
});

test("an offset past the end or before the previous one is clamped", () => {
	const parts = snippetParts("abc", [{ code: "1", at: 2 }, { code: "2", at: 1 }, { code: "3", at: 99 }]);
	assert.deepEqual(parts.map((p) => p.kind === "code" ? p.code : p.text), ["ab", "1", "2", "c", "3"]);
});

test("Markdown blocks: headings, paragraphs, lists, quotes, fences", () => {
	const b = blocks("## Title\n\nOne\ntwo.\n\n- a\n- b\n\n1. x\n\n> q\n\n```js\nlet a;\n```");
	assert.deepEqual(b.map((x) => x.type), ["heading", "para", "list", "list", "quote", "code"]);
	assert.equal(b[1].text, "One two.");
	assert.deepEqual(b[2].items, ["a", "b"]);
	assert.equal(b[3].ordered, true);
	assert.equal(b[5].language, "js");
	assert.equal(b[5].code, "let a;");
});

test("inline spans; a link other than http(s) or mailto stays text", () => {
	assert.deepEqual(inline("Use `get()` **now**, see [docs](https://x.example/d)."), [
		{ type: "text", text: "Use " }, { type: "code", text: "get()" }, { type: "text", text: " " },
		{ type: "strong", text: "now" }, { type: "text", text: ", see " },
		{ type: "link", text: "docs", href: "https://x.example/d" }, { type: "text", text: "." }]);
	assert.deepEqual(inline("[x](javascript:alert(1))").filter((s) => s.type === "link"), []);
	assert.deepEqual(inline("<b>not html</b>"), [{ type: "text", text: "<b>not html</b>" }]);
});

test("matches marks each occurrence, case-insensitively", () => {
	assert.deepEqual(matches("Session and session", "SESSION"), [
		{ text: "Session", hit: true }, { text: " and ", hit: false }, { text: "session", hit: true }]);
	assert.deepEqual(matches("abc", ""), [{ text: "abc", hit: false }]);
});
