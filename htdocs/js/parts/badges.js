// parts/badges.js: a library shown anywhere (the list, its page): its type's name, its
// state and last run as badges, the GitOps badge, counts.
import { el } from "../dom.js";

export const TYPE_NAMES = { git: "Git", website: "Website", llmstxt: "llms.txt", openapi: "OpenAPI",
    wiki: "Wiki" };

// A library's states: the words of the API (GET /api/v2/libs/search, the hosted API's,
// which the admin API, ctxd library and the man pages use too), each with what it means.
export const STATE_MEANINGS = {
	initial: "not indexed yet: its first run has not finished; agents get no answer from it",
	processing: "a run is indexing it; agents get the previous index, if it has one",
	finalized: "indexed: agents get answers from it",
	error: "its first run failed: it has no index (the last run's error says why)",
	delete: "being deleted",
};

// stateBadge(lib): the library's state, the API's word, its meaning as the badge's title.
export function stateBadge(lib) {
	const cls = lib.state === "finalized" ? "ok" : lib.state === "error" ? "error" : "";
	return el("span", { class: "badge " + cls, title: STATE_MEANINGS[lib.state] || null }, lib.state);
}

// stateInWords(lib): the badge and, after it, what the state means.
export function stateInWords(lib) {
	return [stateBadge(lib), STATE_MEANINGS[lib.state] ? el("span", { class: "muted small" }, " " + STATE_MEANINGS[lib.state]) : null];
}

export function runBadge(status) {
	if (!status)
		return el("span", { class: "muted" }, "no run yet");
	const cls = status === "ok" ? "ok" : status === "failed" ? "error" : "";
	return el("span", { class: "badge " + cls }, status);
}

export function gitopsBadge(lib) {
	return lib.gitops ? el("span", { class: "badge gitops",
	    title: "Managed by the GitOps manifest: change it there, not here." }, "GitOps") : null;
}

export const num = (n) => Number(n || 0).toLocaleString();
