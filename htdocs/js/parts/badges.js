// parts/badges.js: a library shown anywhere (the list, its page): its type's name, its
// state and last run as badges, the GitOps badge, counts.
import { el } from "../dom.js";

export const TYPE_NAMES = { git: "Git", website: "Website", llmstxt: "llms.txt", openapi: "OpenAPI",
    wiki: "Wiki" };

// stateBadge(lib): the library's state and run status in words.
export function stateBadge(lib) {
	const words = { initial: "not indexed yet", processing: "indexing", finalized: "ready",
	    error: "failed", delete: "being deleted" };
	const cls = lib.state === "finalized" ? "ok" : lib.state === "error" ? "error" : "";
	return el("span", { class: "badge " + cls }, words[lib.state] || lib.state);
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
