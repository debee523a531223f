// Connect a client (#/connect): for Claude Code, Cursor, VS Code, Codex and OpenCode, the
// `ctxd setup` command and the raw MCP configuration with this deployment's URL (and the
// auth header when MCP authentication is required), and a connectivity test that runs
// initialize, tools/list and one query-docs call against /mcp from the browser.
import { el, clear, field, button } from "../dom.js";
import * as api from "../api.js";

export const title = "Connect a client";

const KEY_PLACEHOLDER = "YOUR_API_KEY";

// The deployment's root URL as the browser reaches it (no trailing slash).
function baseUrl() {
	const u = new URL(".", location.href);
	return (u.origin + u.pathname).replace(/\/$/, "");
}

function json(o) {
	return JSON.stringify(o, null, 2);
}

// The clients: name, flag of ctxd setup, file, and the configuration to paste.
const CLIENTS = [
	["Claude Code", "claude", "~/.claude.json (or .mcp.json in a project)",
	    (url, h) => json({ mcpServers: { ctxd: Object.assign({ type: "http", url }, h ? { headers: h } : {}) } })],
	["Cursor", "cursor", "~/.cursor/mcp.json (or .cursor/mcp.json)",
	    (url, h) => json({ mcpServers: { ctxd: Object.assign({ url }, h ? { headers: h } : {}) } })],
	["VS Code", "vscode", "~/.config/Code/User/mcp.json (or .vscode/mcp.json)",
	    (url, h) => json({ servers: { ctxd: Object.assign({ type: "http", url }, h ? { headers: h } : {}) } })],
	["Codex", "codex", "~/.codex/config.toml",
	    (url, h) => `[mcp_servers.ctxd]\nurl = ${JSON.stringify(url)}\n` +
		(h ? `\n[mcp_servers.ctxd.http_headers]\nAuthorization = ${JSON.stringify(h.Authorization)}\n` : "")],
	["OpenCode", "opencode", "~/.config/opencode/opencode.json (or opencode.json)",
	    (url, h) => json({ mcp: { ctxd: Object.assign({ type: "remote", url, enabled: true }, h ? { headers: h } : {}) } })],
];

function copyButton(getText, label) {
	const status = el("span", { class: "copy-status", role: "status", "aria-live": "polite" });
	return [button("Copy", async () => {
		try {
			await navigator.clipboard.writeText(getText());
			status.textContent = "Copied.";
		} catch (e) {
			status.textContent = "Copying is not allowed here: select the text and copy it.";
		}
	}, { class: "secondary small", "aria-label": label }), status];
}

export async function render(root, params, ctx) {
	const cfg = await api.get("/api/client-config");
	const base = baseUrl();
	const mcpUrl = base + cfg.mcpUrl;
	root.append(el("h1", null, "Connect a client"),
	    el("p", null, "Coding agents reach this deployment's MCP server at ", el("code", null, mcpUrl), ". ",
		cfg.mcpAuthRequired ? "MCP authentication is required: each client sends a personal API key (create one under " :
		    "MCP authentication is off: clients need no key (an admin can require one in Settings > Permissions; keys are under ",
		el("a", { href: "#/keys" }, "API keys"), ")."));
	const key = el("input", { type: "password", autocomplete: "off", spellcheck: "false", placeholder: "ctxd_…" });
	const configs = el("div");
	let chosen = CLIENTS[0][1];
	const picker = el("div", { class: "picker", role: "group", "aria-label": "Your client" },
	    CLIENTS.map(([name, flag]) => button(name, () => { chosen = flag; draw(); }, { class: "secondary", dataset: { pick: flag } })));
	const draw = () => {
		clear(configs, CLIENTS.map((c) => clientPanel(c, base, mcpUrl, cfg.mcpAuthRequired, key.value.trim(), c[1] !== chosen)));
		for (const b of picker.querySelectorAll("button"))
			b.setAttribute("aria-pressed", String(b.dataset.pick === chosen));
	};
	key.addEventListener("input", draw);
	if (cfg.mcpAuthRequired)
		root.append(el("div", { class: "panel narrow" }, field("API key to fill in", key,
		    "Optional: pasted here, it is written into the configurations below and used by the test; it stays in this page.")));
	draw();
	root.append(el("h2", null, "Your client"), picker, configs, await mcpTest(ctx, mcpUrl, cfg.mcpAuthRequired, key));
}

function clientPanel([name, flag, file, conf], base, mcpUrl, auth, key, hidden) {
	const cmd = `ctxd setup --mcp --base-url ${base} --${flag}`;
	const headers = auth ? { Authorization: "Bearer " + (key || KEY_PLACEHOLDER) } : null;
	const text = conf(mcpUrl, headers);
	const id = "client-" + flag;
	return el("section", { class: "panel", "aria-labelledby": id, dataset: { client: flag }, hidden },
	    el("h2", { id }, name),
	    el("p", null, "With the ctxd tool (it writes the configuration, a rule and a skill",
		auth ? "; it asks for your API key, or takes it from CTXD_API_KEY" : "", "):"),
	    el("div", { class: "copyable" }, el("pre", { class: "cmd" }, cmd), copyButton(() => cmd, "Copy the command for " + name)),
	    el("p", null, "Or paste this into ", el("code", null, file), ":"),
	    el("div", { class: "copyable" }, el("pre", { class: "config" }, text), copyButton(() => text, "Copy the configuration for " + name)));
}

// One JSON-RPC request to /mcp as an agent sends it (no cookie).
async function rpc(url, key, version, id, method, params) {
	const headers = { "Content-Type": "application/json", Accept: "application/json, text/event-stream" };
	if (key)
		headers.Authorization = "Bearer " + key;
	if (version)
		headers["MCP-Protocol-Version"] = version;
	const body = { jsonrpc: "2.0", method, params };
	if (id !== null)
		body.id = id;
	let res;
	try {
		res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), credentials: "omit", cache: "no-store" });
	} catch (e) {
		throw new Error("the server could not be reached");
	}
	if (id === null)
		return null;
	let j = null;
	try {
		j = await res.json();
	} catch (e) {
		throw new Error(`HTTP ${res.status}, an answer that is not JSON`);
	}
	if (j && j.error)
		throw new Error(`HTTP ${res.status}: ${j.error.message || JSON.stringify(j.error)}`);
	if (!res.ok)
		throw new Error(`HTTP ${res.status}`);
	return j.result;
}

async function mcpTest(ctx, url, auth, keyInput) {
	const lib = el("input", { type: "text", spellcheck: "false", placeholder: "/owner/repo" });
	const q = el("input", { type: "text", value: "How do I get started?" });
	if (ctx.session.admin) {
		try {
			const l = await api.get("/api/libraries?limit=1");
			if (l.libraries.length)
				lib.value = l.libraries[0].id;
		} catch (e) {
			/* the field stays empty */
		}
	}
	const results = el("ol", { class: "mcp-steps", "aria-live": "polite" });
	const run = el("button", { type: "submit" }, "Test MCP connectivity");
	const step = (name) => {
		const li = el("li", { dataset: { step: name } }, el("strong", null, name), " … ");
		results.append(li);
		return (ok, text) => {
			li.classList.add(ok ? "ok" : "error");
			clear(li, el("strong", null, name), ok ? " — ok: " : " — failed: ", text);
		};
	};
	const form = el("form", { class: "panel", on: { submit: async (ev) => {
		ev.preventDefault();
		run.disabled = true;
		clear(results);
		const key = keyInput.value.trim();
		let version = null, done;
		try {
			done = step("initialize");
			const init = await rpc(url, key, null, 1, "initialize", { protocolVersion: "2025-11-25",
			    capabilities: {}, clientInfo: { name: "ctxd web UI", version: "1" } });
			version = init.protocolVersion;
			done(true, `${init.serverInfo.name} ${init.serverInfo.version}, protocol ${version}`);
			await rpc(url, key, version, null, "notifications/initialized", {});
			done = step("tools/list");
			const tools = await rpc(url, key, version, 2, "tools/list", {});
			done(true, tools.tools.map((t) => t.name).join(", "));
			done = step("query-docs");
			if (!lib.value.trim())
				throw new Error("enter a library ID to query");
			const t0 = performance.now();
			const r = await rpc(url, key, version, 3, "tools/call", { name: "query-docs",
			    arguments: { libraryId: lib.value.trim(), query: q.value } });
			const text = (r.content || []).map((c) => c.text || "").join("\n");
			const ms = Math.round(performance.now() - t0);
			if (r.isError)
				throw new Error(text);
			done(true, [`${text.length} characters in ${ms} ms`, el("pre", { class: "excerpt" }, text.slice(0, 600) + (text.length > 600 ? "…" : ""))]);
		} catch (e) {
			done(false, e.message + (auth && !keyInput.value.trim() ? " (MCP authentication is required: paste an API key above)" : ""));
		} finally {
			run.disabled = false;
		}
	} } },
	    el("h2", null, "Test MCP connectivity"),
	    el("p", null, "Runs initialize, tools/list and one query-docs call against ", el("code", null, url),
		" from this browser, as an agent would, and shows each step's result."),
	    field("Library ID", lib, "The library the query-docs call asks, as /owner/repo."),
	    field("Question", q), el("div", { class: "actions" }, run), results);
	return form;
}
