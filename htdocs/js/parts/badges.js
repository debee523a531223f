// parts/badges.js: a library shown anywhere (the list, its page): its type's name, its
// state and last run as badges, the GitOps badge, counts.
import { el } from "../dom.js";
import { LIBRARY_STATES, RUN_STATUSES, meaning } from "./states.js";

export const TYPE_NAMES = { git: "Git", website: "Website", llmstxt: "llms.txt", openapi: "OpenAPI",
    wiki: "Wiki" };

// A library's states, the API's words, with what each means (parts/states.js).
export const STATE_MEANINGS = LIBRARY_STATES;

// stateBadge(lib): the library's state, the API's word, its meaning as the badge's title.
export function stateBadge(lib) {
	const cls = lib.state === "finalized" ? "ok" : lib.state === "error" ? "error" : "";
	return el("span", { class: "badge " + cls, title: STATE_MEANINGS[lib.state] || null }, lib.state);
}

// stateInWords(lib): the badge and, after it, what the state means.
export function stateInWords(lib) {
	return [stateBadge(lib), STATE_MEANINGS[lib.state] ? el("span", { class: "muted small" }, " " + STATE_MEANINGS[lib.state]) : null];
}

// runBadge(status): how the library's last run ended, the API's word, its meaning as the
// badge's title.
export function runBadge(status) {
	if (!status)
		return el("span", { class: "muted" }, "no run yet");
	const cls = status === "ok" ? "ok" : status === "failed" ? "error" : "";
	return el("span", { class: "badge " + cls, title: meaning(RUN_STATUSES, status) }, status);
}

// legend(summary, ...groups): what each state word means, folded under summary; a group is
// [heading or null, table of word: meaning].
export function legend(summary, ...groups) {
	return el("details", { class: "legend" }, el("summary", null, summary),
	    groups.map(([h, table]) => [h ? el("h3", null, h) : null,
		el("dl", { class: "kv" }, Object.entries(table).map(([w, m]) => [el("dt", null, el("code", null, w)), el("dd", null, m)]))]));
}

export function gitopsBadge(lib) {
	return lib.gitops ? el("span", { class: "badge gitops",
	    title: "Managed by the GitOps manifest: change it there, not here." }, "GitOps") : null;
}

export const num = (n) => Number(n || 0).toLocaleString();
