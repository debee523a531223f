// t0810: Personal settings > API keys (create, copy, revoke, each seen on the API), Connect
// a client (the setup command and configurations) and the MCP connectivity test, with MCP
// authentication off and then required.
//   node t0810-keys-connect.mjs BASE ADMIN_PASSWORD LIBRARY_ID
import { ui, signIn } from "./ui.mjs";

const [base, password, libId] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

// status(key, path): the HTTP status of GET path with the key.
async function status(key, path) {
	const r = await fetch(base + path, { headers: { Authorization: "Bearer " + key } });
	return r.status;
}

// createKey(page, name): creates a key through the page; its value.
async function createKey(page, name) {
	await page.goto("/#/keys");
	await page.getByLabel("Key name").fill(name);
	await page.getByRole("button", { name: "Create API key" }).click();
	const v = page.locator("#new-key-value");
	await v.waitFor();
	return v.inputValue();
}

async function mcpTest(page) {
	await page.getByRole("button", { name: "Test MCP connectivity" }).click();
	const last = page.locator('.mcp-steps li.ok[data-step="query-docs"], .mcp-steps li.error');
	await last.first().waitFor();
	return page.locator(".mcp-steps").innerText();
}

await t.run(async () => {
	// A time zone far from the server's UTC: times must show in the browser's.
	const tz = "Pacific/Kiritimati";
	const page = await t.start({ timezoneId: tz });
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();

	// Keys.
	await page.getByRole("link", { name: "API keys" }).click();
	await page.getByText("No API keys yet — create one above.").waitFor();
	check(await t.titleIs(page, "API keys · ctxd"), "the keys page has its title and an empty state");
	await t.shot(page, "keys-empty");
	const key = await createKey(page, "laptop");
	check(/^ctxd_[A-Za-z0-9_-]{43}$/.test(key), "a created key is shown once, whole", key.slice(0, 8));
	check(/only time it is shown/.test(await page.locator(".warning-panel").textContent()), "with the warning that it is shown once");
	await page.getByRole("button", { name: "Copy", exact: true }).click();
	await page.getByText("Copied to the clipboard.").waitFor();
	check(await page.evaluate(() => navigator.clipboard.readText()) === key, "Copy puts the key on the clipboard");
	const row = page.locator("tbody tr", { hasText: "laptop" });
	check(await row.count() === 1 && (await row.textContent()).includes(key.slice(0, 12)), "the list shows the key's name and prefix");
	check(/never/.test(await row.textContent()), "a new key was never used");
	const created = row.locator("td time").first();
	const iso = await created.getAttribute("datetime");
	const want = new Date(iso).toLocaleString("en-US", { timeZone: tz, dateStyle: "medium", timeStyle: "short" });
	check(await created.textContent() === want, "times show in the browser's time zone", `${await created.textContent()} != ${want}`);
	await t.shot(page, "keys-created");
	check(await status(key, "/api/session") === 200, "the key works on the API");
	await page.reload();
	await row.waitFor();
	check(!(await page.content()).includes(key), "after a reload the key's value is nowhere on the page");
	check(!/never/.test(await row.locator("td").nth(2).textContent()), "the list shows when the key was last used",
	    await row.textContent());
	await page.getByRole("button", { name: "Revoke laptop" }).click();
	await page.getByRole("button", { name: "Confirm revoking laptop" }).click();
	await page.getByText("No API keys yet — create one above.").waitFor();
	check(await status(key, "/api/session") === 401, "a revoked key is refused by the API");

	// Connect a client, MCP authentication off.
	await page.getByRole("link", { name: "Connect a client" }).click();
	await page.locator('[data-client="claude"]').waitFor();
	check(await t.titleIs(page, "Connect a client · ctxd"), "the connect page has its title");
	const cmd = await page.locator('[data-client="claude"] pre.cmd').textContent();
	check(cmd === `ctxd setup --mcp --base-url ${base} --claude`, "the ctxd setup command names this deployment", cmd);
	const claude = JSON.parse(await page.locator('[data-client="claude"] pre.config').textContent());
	check(claude.mcpServers.ctxd.url === base + "/mcp" && !claude.mcpServers.ctxd.headers,
	    "the Claude Code configuration points at /mcp, without a header when auth is off");
	const codex = await page.locator('[data-client="codex"] pre.config').textContent();
	check(codex.startsWith(`[mcp_servers.ctxd]\nurl = "${base}/mcp"`), "the Codex configuration is TOML", codex);
	for (const c of ["cursor", "vscode", "opencode"])
		check(await page.locator(`[data-client="${c}"] pre.config`).count() === 1, `a configuration for ${c}`);
	check(await page.getByLabel("Library ID").inputValue() === libId, "the MCP test offers a library");
	let out = await mcpTest(page);
	check(/initialize — ok: ctxd/.test(out) && /tools\/list — ok: resolve-library-id, query-docs/.test(out) &&
	    /query-docs — ok: \d+ characters/.test(out), "the MCP test passes its three steps", out);
	await t.shot(page, "connect");

	// MCP authentication required: switched on in Settings > Permissions.
	await page.goto("/#/settings?tab=permissions");
	await page.getByLabel("Require MCP authentication").check();
	await page.getByText("Require MCP authentication: on. Saved.").waitFor();
	await page.goto("/#/connect");
	await page.locator('[data-client="claude"]').waitFor();
	check(/MCP authentication is required/.test(await page.locator(".view-connect").textContent()), "the connect page says a key is required");
	check(/"Authorization": "Bearer YOUR_API_KEY"/.test(await page.locator('[data-client="cursor"] pre.config').textContent()),
	    "the configurations carry the auth header");
	out = await mcpTest(page);
	check(/initialize — failed: HTTP 401/.test(out), "without a key the MCP test fails at initialize, in words", out);
	const key2 = await createKey(page, "agent");
	await page.goto("/#/connect");
	await page.getByLabel("API key to fill in").fill(key2);
	check((await page.locator('[data-client="vscode"] pre.config').textContent()).includes("Bearer " + key2),
	    "a pasted key is filled into the configurations");
	out = await mcpTest(page);
	check(/query-docs — ok/.test(out), "with the key the MCP test passes", out);
	await t.shot(page, "connect-auth");
});
