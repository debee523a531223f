// Settings (#/settings?tab=NAME, admins): AI provider, embeddings, git tokens,
// integrations, GitOps (../forms/gitops.js), policies (../forms/policies.js), permissions, users, your account, and the setup
// wizard again.
import { el, clear, field, showStatus, button, timeEl, newId } from "../dom.js";
import * as api from "../api.js";
import { settingsForm, providerTest, saveAndTest, sentence } from "../forms/settings.js";
import { passwordForm } from "../forms/password.js";
import { gitopsTab } from "../forms/gitops.js";
import { policiesTab } from "../forms/policies.js";

export const title = "Settings";

const TABS = [
	["ai", "AI provider"],
	["embeddings", "Embeddings"],
	["git", "Git tokens"],
	["integrations", "Integrations"],
	["gitops", "GitOps"],
	["upstream", "Upstream"],
	["policies", "Policies"],
	["permissions", "Permissions"],
	["users", "Users"],
	["advanced", "Advanced"],
	["account", "Your account"],
];

// The switches of the Permissions tab; each one's label and what it opens are the server's
// (GET /api/settings: label, help).
const PERMS = ["perm.anonymous_parse", "perm.anonymous_refresh", "perm.anonymous_delete",
    "perm.anonymous_support_bundle", "perm.members_use_integrations", "perm.require_mcp_auth"];

const SECTIONS = {
	ai: {
		intro: "The LLM reranks answers and titles snippets of source code. The key is write-only: it shows as set or not set.",
		names: ["ai.llm.provider", "ai.llm.api_key", "ai.llm.model", "ai.llm.region", "ai.llm.base_url"],
		test: ["llm", "LLM"],
	},
	embeddings: {
		intro: "Embeddings let questions match snippets by meaning. Without a provider, retrieval is lexical only.",
		names: ["ai.embed.provider", "ai.embed.api_key", "ai.embed.model", "ai.embed.base_url", "ai.embed.region"],
		test: ["embed", "embedding"],
	},
	git: {
		intro: "Tokens for cloning private repositories; only the platforms you use need one. Without a token, only public repositories can be indexed.",
		opens: "Only admins may add repositories from a host that has a token, unless Allow members to use integrations is on (Permissions).",
		names: ["git.github.token", "git.github.host", "git.gitlab.token", "git.gitlab.host"],
	},
	integrations: {
		intro: "A GitHub App connection (it replaces the personal token and is needed for push webhooks), and the wiki site that wiki sources read.",
		names: ["git.github.app_id", "git.github.app_installation_id", "git.github.app_private_key",
		    "git.github.webhook_secret", "wiki.site_url", "wiki.kind", "wiki.email", "wiki.token"],
		opens: "Only admins may add wiki sources, and repositories read with the App, unless Allow members to use integrations is on (Permissions).",
	},
	upstream: {
		intro: "A Context7-compatible upstream (the hosted API or another ctxd, its API base such as https://HOST/api) answers for the public libraries this server does not hold, as the policies allow. Empty: none, nothing leaves this server. The key is write-only and only ever sent to the upstream.",
		names: ["upstream.url", "upstream.api_key", "upstream.timeout_s", "upstream.cache_ttl_s", "upstream.cache_mb"],
		upstreamTest: true,
	},
	advanced: {
		intro: "The server's names, the networks it may reach, content rules and limits. Each is also ctxd-admin settings NAME (see ctxd-admin(8)).",
		names: ["server.hostnames", "fetch.allowed_networks", "git.plain_http_hosts", "mcp.allowed_origins",
		    "content.injection", "limits.max_repo_mb", "limits.max_file_kb", "limits.max_files",
		    "limits.job_timeout_s", "sources.max_pages", "sources.page_timeout_s", "sources.inflight",
		    "sources.crawl_delay_ms", "sources.max_page_kb", "sources.max_spec_kb"],
		opens: "The server reaches public addresses only: a network listed in fetch.allowed_networks is one that every user who may add a source can make it read.",
	},
};

export async function render(root, params, ctx) {
	// ?setting=NAME (a link from a message naming it): the tab that holds it, the field focused
	const wanted = ctx.query().get("setting");
	const holder = wanted ? Object.keys(SECTIONS).find((t) => SECTIONS[t].names.includes(wanted)) ||
	    (PERMS.includes(wanted) ? "permissions" : null) : null;
	const tab = holder || (TABS.some(([t]) => t === ctx.query().get("tab")) ? ctx.query().get("tab") : "ai");
	root.append(el("h1", null, "Settings"),
	    el("nav", { class: "tabs", "aria-label": "Settings sections" },
		TABS.map(([t, label]) => el("a", { href: "#/settings?tab=" + t,
		    "aria-current": t === tab ? "page" : null }, label))));
	const body = el("div");
	root.append(body);
	if (SECTIONS[tab])
		await settingsSection(body, SECTIONS[tab], TABS.find(([t]) => t === tab)[1]);
	else if (tab === "permissions")
		await permissions(body);
	else if (tab === "gitops")
		await gitopsTab(body);
	else if (tab === "policies")
		await policiesTab(body);
	else if (tab === "users")
		await users(body, ctx);
	else
		account(body, ctx);
	if (holder) {
		const row = body.querySelector(`[data-setting="${CSS.escape(wanted)}"]`);
		if (row) {
			row.classList.add("wanted");
			row.scrollIntoView({ block: "center" });
			const input = row.querySelector("input, select, textarea");
			if (input)
				input.focus({ preventScroll: true });
		}
	}
}

// "Save and test" of the upstream: saves the form, then one real library search there.
function upstreamTest(form) {
	return saveAndTest(form, "upstream", "/api/upstream/test", {}, (r) => r.message);
}

async function settingsSection(body, sec, heading) {
	const { settings } = await api.get("/api/settings");
	const form = settingsForm(settings, sec.names, { names: true });
	const save = el("button", { type: "submit" }, "Save");
	const test = sec.test ? providerTest(form, sec.test[0], sec.test[1]) :
	    sec.upstreamTest ? upstreamTest(form) : null;
	body.append(el("form", { class: "panel", on: { submit: async (ev) => {
		ev.preventDefault();
		save.disabled = true;
		try {
			await api.patch("/api/settings", form.values());
			clear(body);
			await settingsSection(body, sec, heading);
			const st = body.querySelector(".settings-form > .field-status");
			showStatus(st, true, "Saved.");
		} catch (e) {
			form.showError(e);
		} finally {
			save.disabled = false;
		}
	} } },
	    el("h2", null, heading), el("p", null, sec.intro),
	    sec.opens ? el("p", { class: "help switch-opens" }, sec.opens) : null, form.node,
	    el("div", { class: "actions" }, save, test && test.button,
		sec.test ? el("a", { href: "#/setup?step=" + (sec.test[0] === "llm" ? "ai-provider" : "embedding") }, "Open the setup wizard") : null),
	    test && test.output));
}

async function permissions(body) {
	const { settings } = await api.get("/api/settings");
	const list = el("div", { class: "panel" }, el("h2", null, "Permissions"),
	    el("p", null, "Each switch takes effect at once. All are off on a new instance."));
	for (const name of PERMS) {
		const meta = settings[name];
		if (!meta)
			continue;
		const label = meta.label || name;
		const input = el("input", { type: "checkbox", id: newId("perm"), name, checked: !!meta.value,
		    "aria-describedby": "help-" + name.replace(/\./g, "-") });
		const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
		input.addEventListener("change", async () => {
			input.disabled = true;
			try {
				await api.patch("/api/settings", { [name]: input.checked });
				showStatus(status, true, label + ": " + (input.checked ? "on" : "off") + ". Saved.");
			} catch (e) {
				input.checked = !input.checked;
				showStatus(status, false, e.message);
			} finally {
				input.disabled = false;
			}
		});
		list.append(el("div", { class: "field check", dataset: { setting: name } }, input,
		    el("label", { for: input.id }, label), " ", el("code", { class: "setting-name muted small" }, name),
		    el("p", { class: "help", id: "help-" + name.replace(/\./g, "-") }, sentence(meta.help)), status));
	}
	body.append(list);
}

// users(body, ctx): the users and the add form; called again after adding a user, it
// replaces the content only once the list is read (no blank flash).
async function users(body, ctx, notice) {
	const { users: list } = await api.get("/api/users");
	const me = ctx.session.user ? ctx.session.user.name : null;
	clear(body, el("section", { class: "panel" }, el("h2", null, "Users"),
	    notice ? el("p", { class: "notice ok", role: "status" }, notice) : null,
	    el("div", { class: "table-wrap" }, el("table", { class: "stack" },
		el("thead", null, el("tr", null, ["Name", "Role", "Status", "Created", "Actions"].map((h) => el("th", { scope: "col" }, h)))),
		el("tbody", null, list.map((u) => userRow(u, me)))))),
	    addUserForm((name) => users(body, ctx, "User " + name + " added: they must change the password at their first sign-in.")));
}

// userRow(u, me): a user's row; a change replaces the row with the user as the server
// answers it, with the outcome in words in the new row.
function userRow(u, me) {
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const self = u.name === me;
	let tr;
	const patch = async (change, ok, focus) => {
		try {
			const nu = await api.patch("/api/users/" + encodeURIComponent(u.name), change);
			const row = userRow(nu, me);
			tr.replaceWith(row);
			showStatus(row.status, true, ok);
			const f = row.querySelector(focus);
			if (f)
				f.focus();
		} catch (e) {
			showStatus(status, false, e.message);
		}
	};
	const role = el("select", { "aria-label": "Role of " + u.name, disabled: self, class: "role" },
	    ["member", "admin"].map((r) => el("option", { value: r, selected: r === u.role }, r)));
	role.addEventListener("change", () => patch({ role: role.value }, u.name + " is now " + role.value + ".", "select.role"));
	const pw = el("input", { type: "password", autocomplete: "new-password", "aria-label": "New password for " + u.name,
	    placeholder: "new password", minlength: 10, required: true });
	const reset = el("form", { class: "inline-form", on: { submit: (ev) => {
		ev.preventDefault();
		patch({ password: pw.value }, "Password of " + u.name + " reset: it must be changed at the next sign-in.", "input");
	} } }, pw, el("button", { type: "submit", class: "secondary small" }, "Reset password"));
	tr = el("tr", { dataset: { user: u.name } },
	    el("th", { scope: "row" }, u.name, self ? el("span", { class: "muted" }, " (you)") : null),
	    el("td", { "data-label": "Role" }, role),
	    el("td", { "data-label": "Status" }, u.disabled ? "disabled" : u.mustChangePassword ? "must change password" : "active"),
	    el("td", { "data-label": "Created" }, timeEl(u.createdAt)),
	    el("td", { "data-label": "Actions" }, self ? el("span", { class: "muted" }, "Change your own password under Your account.") : [
		button(u.disabled ? "Enable" : "Disable", () => patch({ disabled: !u.disabled },
		    u.name + (u.disabled ? " enabled." : " disabled: their sessions were ended."), "button.toggle"),
		    { class: "secondary small toggle" }),
		reset], status));
	tr.status = status;
	return tr;
}

// addUserForm(reload): POST /api/users; reload(name) after adding.
function addUserForm(reload) {
	const name = el("input", { type: "text", autocomplete: "off", required: true, maxlength: 64, spellcheck: "false" });
	const pw = el("input", { type: "password", autocomplete: "new-password", required: true, minlength: 10 });
	const role = el("select", null, el("option", { value: "member" }, "member"), el("option", { value: "admin" }, "admin"));
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	return el("form", { class: "panel narrow", on: { submit: async (ev) => {
		ev.preventDefault();
		try {
			const u = await api.post("/api/users", { name: name.value, password: pw.value, role: role.value });
			await reload(u.name);
		} catch (e) {
			showStatus(status, false, e.message);
		}
	} } },
	    el("h2", null, "Add a user"),
	    field("Name", name), field("First password", pw, "10 to 1024 characters; they must change it at their first sign-in."),
	    field("Role", role, "Members manage their own API keys; admins manage everything."), status,
	    el("div", { class: "actions" }, el("button", { type: "submit" }, "Add user")));
}

function account(body, ctx) {
	body.append(el("h2", null, "Change your password"),
	    el("p", null, "Signed in as ", el("strong", null, ctx.session.user ? ctx.session.user.name : "an operator key"),
		". Changing the password signs out your other sessions."),
	    passwordForm(ctx, async () => { await ctx.refreshSession(); }),
	    el("h2", null, "Setup wizard"),
	    el("p", null, el("a", { href: "#/setup?step=ai-provider" }, "Open the setup wizard again"),
		" to go through the AI provider, embeddings, git tokens and who can read steps."));
}
