// forms/checks.js: the checks of the UI's forms, as pure functions of the values (no DOM),
// so that Node's test runner tests them without a browser. Each returns an error in words,
// or null. They mirror the server's checks: the bounds of a source's fields come from the
// server (GET /api/sources/types: sourceFields below); the server stays the judge, and its
// 400 error is shown next to the field it names.

// Bounds of fields that GET /api/sources/types does not describe (a URL inside a list, a
// branch name: git's own bound).
export const URL_MAX = 2048, BRANCH_MAX = 255;

// The checks: each takes the control's value and returns an error in words or null.
export const chars = (s) => Array.from(s).length;
export const hasControl = (s) => /[\u0000-\u001f\u007f]/.test(s);

export function checkUrl(v, name, max = URL_MAX) {
	if (v === "")
		return "Required.";
	if (chars(v) > max)
		return `At most ${max} characters.`;
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

// checkList(max, elemMax): a folder or file list: at most max lines of at most elemMax
// characters, no '..', no '\\' and no control characters.
export function checkList(max, elemMax) {
	return (v) => {
		const l = lines(v);
		if (l.length > max)
			return `At most ${max} entries.`;
		for (const s of l)
			if (chars(s) > elemMax || s.includes("..") || s.includes("\\") || hasControl(s))
				return `"${s}": an entry has at most ${elemMax} characters, no '..' and no '\\'.`;
		return null;
	};
}

// checkLines(max, elemMax, what): any other list: its count and each line's length.
export function checkLines(max, elemMax, what = "entries") {
	return (v) => {
		const l = lines(v);
		if (l.length > max)
			return `At most ${max} ${what}.`;
		for (const s of l)
			if (elemMax && chars(s) > elemMax)
				return `"${s}": at most ${elemMax} characters.`;
		return null;
	};
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
	if (!/^~?[A-Za-z0-9_~]+$/.test(v))
		return "Letters, digits, '_' or a leading '~' (a personal space).";
	return null;
}

// checkPageUrls(max): at most max lines, each an http(s) URL.
export function checkPageUrls(max) {
	return (v) => {
		const l = lines(v);
		if (l.length > max)
			return `At most ${max} pages.`;
		for (const s of l) {
			const e = checkUrl(s);
			if (e)
				return `"${s}": ${e}`;
		}
		return null;
	};
}

// The checks of the server's field check functions that bounds do not say, by field name.
const FIELD_RULES = {
	branch: () => checkBranch,
	folders: (f) => checkList(f.max, f.elemMax),
	excludeFolders: (f) => checkList(f.max, f.elemMax),
	excludeFiles: (f) => checkList(f.max, f.elemMax),
	spaceKey: () => checkSpaceKey,
	pageUrls: (f) => checkPageUrls(f.max),
};

function sentence(s) {
	return s ? s.charAt(0).toUpperCase() + s.slice(1) + "." : "";
}

// sourceFields(type): the rows of the "Add library" form for one source type as GET
// /api/sources/types describes it ({type, fields: [{name, type, label, doc, required,
// min, max, elemMax, default, group}]}): [{name, label, kind, help, check, group}], the
// entry's "type" and the alias "repoUrl" left out. Labels, help, bounds and defaults are
// the server's; only the kind of control is chosen here.
export function sourceFields(type) {
	const out = [];
	for (const f of type.fields || []) {
		if (f.name === "type" || f.name === "repoUrl")
			continue;
		const kind = f.name === "url" ? "url" : f.name === "description" ? "textarea" :
		    f.type === "boolean" ? "check" : f.type === "integer" ? "number" :
		    f.type === "list" ? "list" : "text";
		const required = f.required || f.name === "url";
		const label = (f.label || f.name) + (required || kind === "check" ? "" : " (optional)");
		let help = sentence(f.name === "url" && type.url ? type.url : f.doc);
		if (kind === "number")
			help += ` From ${f.min} to ${f.max}` + (f.default !== undefined ? `; ${f.default} when empty.` : ".");
		else if (kind === "list")
			help += " One a line.";
		let check;
		if (kind === "url")
			check = (v) => checkUrl(v, type.type, f.max);
		else if (kind === "number")
			check = checkInt(f.min, f.max);
		else if (FIELD_RULES[f.name])
			check = FIELD_RULES[f.name](f);
		else if (kind === "list")
			check = checkLines(f.max, f.elemMax);
		else if (kind !== "check" && f.max)
			check = checkText(f.max);
		const guard = check;
		if (required && kind !== "check")
			check = (v) => (v === "" ? "Required." : guard ? guard(v) : null);
		out.push({ name: f.name, label, kind, help: help.trim(), check, group: f.group || null });
	}
	// The URL first, the type's own fields next, the title and description last.
	const rank = (f) => (f.name === "url" ? 0 : f.name === "title" || f.name === "description" ? 2 : 1);
	return out.map((f, i) => [f, i]).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1])
	    .map(([f]) => f);
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

// readWithCredentials(type, url, settings): which of the instance's credentials a new source
// of this type and URL is read with when its server asks for them (a private repository,
// a wiki), in words naming the setting, or null. settings: GET /api/settings's. A git URL
// on the GitHub-type host (git.github.host) with a token or App, or on the GitLab-type host
// with a token; a wiki source whenever wiki.token is set. Whether a repository is private
// is not knowable before its first fetch: the job log says so then.
export function readWithCredentials(type, url, settings) {
	const s = (n) => (settings && settings[n]) || {};
	if (type === "wiki")
		return s("wiki.token").set ? "the wiki API token (wiki.token)" : null;
	if (type !== "git")
		return null;
	let host;
	try {
		host = new URL(url).host.toLowerCase();
	} catch (e) {
		return null;
	}
	const hostOf = (n, dflt) => String(s(n).value || s(n).default || dflt).toLowerCase();
	if (host === hostOf("git.github.host", "github.com") &&
	    (s("git.github.token").set || s("git.github.app_private_key").set))
		return s("git.github.token").set ? "the GitHub token (git.github.token)" : "the GitHub App (git.github.app_id)";
	if (host === hostOf("git.gitlab.host", "gitlab.com") && s("git.gitlab.token").set)
		return "the GitLab token (git.gitlab.token)";
	return null;
}
