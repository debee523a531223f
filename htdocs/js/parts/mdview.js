// parts/mdview.js: a snippet shown as the agent's answer has it: its prose (Markdown made
// DOM nodes with el(), never HTML) and its code blocks in document order, each block with
// its language; the words of the snippet filter marked.
import { el } from "../dom.js";
import { snippetParts, blocks, inline, matches } from "./snippet.js";

// marked(text, q): text nodes and <mark>s of the filter's occurrences.
function marked(text, q) {
	return matches(text, q).map((p) => (p.hit ? el("mark", null, p.text) : p.text));
}

function spans(text, q) {
	return inline(text).map((s) => {
		switch (s.type) {
		case "code": return el("code", null, marked(s.text, q));
		case "strong": return el("strong", null, marked(s.text, q));
		case "em": return el("em", null, marked(s.text, q));
		case "link": return el("a", { href: s.href, rel: "noopener noreferrer", target: "_blank" }, marked(s.text, q));
		default: return marked(s.text, q);
		}
	});
}

// codeBlock(language, code, q): a figure with the language as its caption.
export function codeBlock(language, code, q) {
	const lang = language || "code";
	return el("figure", { class: "code" }, el("figcaption", { class: "muted small" }, lang),
	    el("pre", { tabindex: "0", "aria-label": lang + " example" }, el("code", null, marked(code, q))));
}

// prose(md, q): the Markdown's blocks as elements.
function prose(md, q) {
	return blocks(md).map((b) => {
		switch (b.type) {
		case "heading": return el("h" + Math.min(6, b.level + 3), null, spans(b.text, q));
		case "list": return el(b.ordered ? "ol" : "ul", null, b.items.map((t) => el("li", null, spans(t, q))));
		case "quote": return el("blockquote", null, spans(b.text, q));
		case "code": return codeBlock(b.language, b.code, q);
		default: return el("p", null, spans(b.text, q));
		}
	});
}

// snippetBody(s, q): the snippet's prose and code in order.
export function snippetBody(s, q) {
	return el("div", { class: "snippet-body" }, snippetParts(s.text, s.code).map((p) =>
	    p.kind === "code" ? codeBlock(p.language, p.code, q) : prose(p.text, q)));
}
