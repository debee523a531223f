// parts/snippet.js: a snippet's body as the agent's answer has it, as pure data (no DOM, so
// Node's test runner tests it): the prose and the code blocks in document order (a block
// stands where its byte offset "at" falls in the text, as lib/search/format.c places it),
// the prose's Markdown as blocks and inline spans, and the places of a filter's words.

// snippetParts(text, code): [{kind: "prose", text} | {kind: "code", language, code}] in
// order. code: [{language, code, at}], at a UTF-8 byte offset into text (missing: after
// the text); an offset past the end counts as the end, one before the previous as it.
export function snippetParts(text, code) {
	const bytes = new TextEncoder().encode(text || "");
	const dec = new TextDecoder();
	const out = [];
	let prev = 0;
	const prose = (a, b) => {
		const t = dec.decode(bytes.subarray(a, b)).trim();
		if (t !== "")
			out.push({ kind: "prose", text: t });
	};
	for (const c of code || []) {
		let at = Number.isInteger(c.at) && c.at >= 0 ? c.at : bytes.length;
		at = Math.max(prev, Math.min(at, bytes.length));
		prose(prev, at);
		out.push({ kind: "code", language: c.language || "", code: c.code || "" });
		prev = at;
	}
	prose(prev, bytes.length);
	return out;
}

// blocks(md): the Markdown prose as blocks: {type: "heading", level, text}, {type:
// "para", text}, {type: "list", ordered, items: [text]}, {type: "quote", text},
// {type: "code", language, code} (a fence inside the prose).
export function blocks(md) {
	const lines = String(md || "").replace(/\r\n?/g, "\n").split("\n");
	const out = [];
	let i = 0;
	while (i < lines.length) {
		const l = lines[i];
		let m;
		if (l.trim() === "") {
			i++;
		} else if ((m = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(l))) {
			const fence = m[1], body = [];
			i++;
			while (i < lines.length && !lines[i].trimStart().startsWith(fence))
				body.push(lines[i++]);
			i++;
			out.push({ type: "code", language: m[2], code: body.join("\n") });
		} else if ((m = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(l))) {
			out.push({ type: "heading", level: m[1].length, text: m[2] });
			i++;
		} else if (/^ {0,3}([-*+]|\d{1,9}[.)])\s+/.test(l)) {
			const ordered = /^ {0,3}\d/.test(l), items = [];
			while (i < lines.length && lines[i].trim() !== "") {
				const it = /^ {0,3}(?:[-*+]|\d{1,9}[.)])\s+(.*)$/.exec(lines[i]);
				if (it)
					items.push(it[1]);
				else if (items.length)
					items[items.length - 1] += " " + lines[i].trim();
				i++;
			}
			out.push({ type: "list", ordered, items });
		} else if (/^ {0,3}>/.test(l)) {
			const body = [];
			while (i < lines.length && /^ {0,3}>/.test(lines[i]))
				body.push(lines[i++].replace(/^ {0,3}> ?/, ""));
			out.push({ type: "quote", text: body.join(" ") });
		} else {
			const body = [];
			while (i < lines.length && lines[i].trim() !== "" &&
			    !/^ {0,3}(#{1,6}\s|`{3,}|~{3,}|>|[-*+]\s|\d{1,9}[.)]\s)/.test(lines[i]))
				body.push(lines[i++].trim());
			if (!body.length)
				body.push(lines[i++].trim());
			out.push({ type: "para", text: body.join(" ") });
		}
	}
	return out;
}

// inline(text): spans of one block's text: {type: "text"|"code"|"em"|"strong", text} and
// {type: "link", text, href} (href only an http(s) or mailto address; any other link is its text).
export function inline(text) {
	const out = [];
	const re = /(`+)([\s\S]*?[^`])\1(?!`)|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|\[([^\]]+)\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;
	let last = 0, m;
	const push = (t) => { if (t) out.push({ type: "text", text: t }); };
	while ((m = re.exec(text)) !== null) {
		push(text.slice(last, m.index));
		if (m[1])
			out.push({ type: "code", text: m[2].trim() });
		else if (m[3] || m[4])
			out.push({ type: "strong", text: m[3] || m[4] });
		else if (m[5])
			out.push({ type: "em", text: m[5] });
		else if (/^(https?:\/\/|mailto:)/i.test(m[7]))
			out.push({ type: "link", text: m[6], href: m[7] });
		else
			push(m[6]);
		last = re.lastIndex;
	}
	push(text.slice(last));
	return out;
}

// matches(text, q): text cut into [{text, hit}] where hit marks each case-insensitive
// occurrence of the filter q (its words, as the snippet filter looks for the whole string).
export function matches(text, q) {
	const needle = String(q || "").trim().toLowerCase();
	if (needle === "")
		return [{ text, hit: false }];
	const out = [], low = text.toLowerCase();
	let at = 0, i;
	while ((i = low.indexOf(needle, at)) !== -1) {
		if (i > at)
			out.push({ text: text.slice(at, i), hit: false });
		out.push({ text: text.slice(i, i + needle.length), hit: true });
		at = i + needle.length;
	}
	if (at < text.length)
		out.push({ text: text.slice(at), hit: false });
	return out;
}
