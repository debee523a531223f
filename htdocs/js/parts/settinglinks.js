// parts/settinglinks.js: a message (a job's, a log line, a library's last error) with each
// setting it names (fetch.allowed_networks in "address ... is not allowed by
// fetch.allowed_networks") made a link to that setting on the Settings page, where it can be
// changed.
import { el } from "../dom.js";

const NAME = /\b((?:fetch|git|limits|sources|uploads|jobs|content|mcp|server|perm|upstream|wiki|gitops|policy|ai)\.[a-z0-9_]+(?:\.[a-z0-9_]+)?)\b/g;

// withSettingLinks(text): text nodes and links, one per setting named.
export function withSettingLinks(text) {
	const s = String(text || "");
	const out = [];
	let last = 0, m;
	NAME.lastIndex = 0;
	while ((m = NAME.exec(s)) !== null) {
		out.push(s.slice(last, m.index));
		out.push(el("a", { href: "#/settings?setting=" + encodeURIComponent(m[1]), class: "setting-link",
		    title: "Change " + m[1] + " in Settings" }, m[1]));
		last = NAME.lastIndex;
	}
	out.push(s.slice(last));
	return out.filter((x) => x !== "");
}
