// forms/checks.js: the checks of the UI's forms, as pure functions of the values (no DOM),
// so that Node's test runner tests them without a browser. Each returns an error in words,
// or null. They mirror the server's checks (lib/sources/entry.c, lib/index/library.c, lib/auth/user.c); the
// server stays the judge, and its 400 error is shown next to the field it names.

export const URL_MAX = 2048, TITLE_MAX = 200, DESCRIPTION_MAX = 2000;
export const LIST_MAX = 100, ENTRY_MAX = 255, BRANCH_MAX = 255;
export const MAX_PAGES = 100000, MAX_DEPTH = 20;
export const UPLOAD_MAX = 16 * 1024 * 1024;

// The checks: each takes the control's value and returns an error in words or null.
export const chars = (s) => Array.from(s).length;
export const hasControl = (s) => /[\u0000-\u001f\u007f]/.test(s);

export function checkUrl(v, name) {
	if (v === "")
		return "Required.";
	if (chars(v) > URL_MAX)
		return `At most ${URL_MAX} characters.`;
	let u;
	try {
		u = new URL(v);
	} catch (e) {
		return "This is not a URL.";
	}
	if (u.protocol !== "http:" && u.protocol !== "https:")
		return "Must be an http or https URL.";
	if (u.username || u.password)
		return "Must not carry credentials: store tokens in Settings instead.";
	if (name === "llmstxt" && !/\/(llms|llms-full|llms-small)\.txt$/.test(u.pathname))
		return "Must point to a file named llms.txt, llms-full.txt or llms-small.txt.";
	return null;
}

export function checkText(max) {
	return (v) => chars(v) > max ? `At most ${max} characters.` : null;
}

export function checkBranch(v) {
	if (v === "")
		return null;
	if (v.length > BRANCH_MAX || /^[-/]/.test(v) || v.includes("..") || v.includes("//") ||
	    v.endsWith("/") || v.endsWith(".lock") || /[\u0000-\u0020\u007f~^:?*[\\]/.test(v))
		return "Is not a valid git branch name.";
	return null;
}

// lines(v): the non-empty lines of a textarea, trimmed.
export const lines = (v) => v.split("\n").map((s) => s.trim()).filter((s) => s !== "");

export function checkList(v) {
	const l = lines(v);
	if (l.length > LIST_MAX)
		return `At most ${LIST_MAX} entries.`;
	for (const s of l)
		if (chars(s) > ENTRY_MAX || s.includes("..") || s.includes("\\") || hasControl(s))
			return `"${s}": an entry has at most ${ENTRY_MAX} characters, no '..' and no '\\'.`;
	return null;
}

export function checkPatterns(v) {
	const l = lines(v);
	if (l.length > LIST_MAX)
		return `At most ${LIST_MAX} patterns.`;
	for (const s of l)
		if (chars(s) > ENTRY_MAX)
			return `"${s}": a pattern has at most ${ENTRY_MAX} characters.`;
	return null;
}

export function checkInt(min, max) {
	return (v) => {
		if (v === "")
			return null;
		if (!/^[0-9]+$/.test(v) || Number(v) < min || Number(v) > max)
			return `A whole number from ${min} to ${max}.`;
		return null;
	};
}

export function checkSpaceKey(v) {
	if (v === "")
		return null;
	if (chars(v) > 255 || !/^~?[A-Za-z0-9_~]+$/.test(v))
		return "Letters, digits, '_' or a leading '~' (a personal space).";
	return null;
}

export function checkPageUrls(v) {
	const l = lines(v);
	if (l.length > LIST_MAX)
		return `At most ${LIST_MAX} pages.`;
	for (const s of l) {
		const e = checkUrl(s);
		if (e)
			return `"${s}": ${e}`;
	}
	return null;
}

// checkNewPassword(pw1, pw2, user): a new password as the server takes it (10 to 1024
// characters, not the user name), typed the same twice.
export function checkNewPassword(pw1, pw2, user) {
	if (pw1 !== pw2)
		return "The two new passwords differ.";
	if (chars(pw1) < 10 || chars(pw1) > 1024)
		return "A password has 10 to 1024 characters.";
	if (user && pw1 === user)
		return "The password must differ from the user name.";
	return null;
}

// aiSettingShown(name, values, takes): whether the settings form shows the AI setting
// name (ai.llm.* or ai.embed.*) for the providers chosen in values; undefined for other
// settings. takes: vendor -> the settings a form offers for it ("api_key", "region",
// "base_url"), as GET /api/settings gives it (choiceTakes), so no vendor is named here.
// An embedding provider "same" uses the LLM's vendor, whose key and endpoint it inherits.
export function aiSettingShown(name, values, takes) {
	const m = /^ai\.(llm|embed)\.(api_key|model|region|base_url)$/.exec(name);
	if (!m)
		return undefined;
	const [, role, what] = m;
	const llm = values["ai.llm.provider"] || "";
	const chosen = role === "llm" ? llm : values["ai.embed.provider"] || "same";
	const same = role === "embed" && chosen === "same";
	const vendor = same ? llm : chosen;
	const offers = (v, s) => !!v && Array.isArray((takes || {})[v]) && takes[v].includes(s);
	if (what === "model")
		return role === "embed" || llm !== "";
	if (what === "region")
		return offers(vendor, "region");
	return !same && offers(vendor, what);
}
