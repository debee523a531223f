// t0820: Settings > Permissions (each switch toggled in the page and seen enforced on the
// API, anonymously) and Settings > Users (add a member, who then cannot see admin pages;
// disable them; reset their password).
//   node t0820-permissions-users.mjs BASE ADMIN_PASSWORD
import { ui, signIn } from "./ui.mjs";

const [base, password] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

// The anonymous request each switch opens, and its status when off / when on.
const PERMS = [
	["Allow anonymous parse", () => anon("POST", "/api/parse", "{}"), 401, 400],
	["Allow anonymous refresh", () => anon("POST", "/api/libraries/no/such/refresh"), 401, 404],
	["Allow anonymous delete", () => anon("DELETE", "/api/libraries/no/such"), 401, 404],
	["Allow anonymous support bundle", () => anon("GET", "/api/support-bundle"), 401, 200],
	["Require MCP authentication", () => anon("GET", "/api/v2/libs/search?libraryName=x&query=x"), 200, 401],
];

async function anon(method, path, body) {
	const r = await fetch(base + path, { method, body,
	    headers: body ? { "Content-Type": "application/json" } : {} });
	return r.status;
}

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();

	await page.goto("/#/settings?tab=permissions");
	for (const [label, probe, off, on] of PERMS) {
		const box = page.getByLabel(label);
		await box.waitFor();
		check(!(await box.isChecked()) && await probe() === off, `${label}: off by default, the API answers ${off}`);
		await box.check();
		await page.getByText(`${label}: on. Saved.`).waitFor();
		check(await probe() === on, `${label}: switched on in the page, the API answers ${on}`);
		await box.uncheck();
		await page.getByText(`${label}: off. Saved.`).waitFor();
		check(await probe() === off, `${label}: switched off again, the API answers ${off}`);
	}
	check((await page.locator('[data-setting="perm.require_mcp_auth"] .help').textContent()).includes("/mcp"),
	    "each switch says in one line what it opens");
	await t.shot(page, "settings-permissions-saved");

	// Users: add a member.
	await page.goto("/#/settings?tab=users");
	await page.getByLabel("Name", { exact: true }).fill("mia");
	await page.getByLabel("First password").fill("mia first password");
	await page.getByRole("button", { name: "Add user" }).click();
	const mia = page.locator('tr[data-user="mia"]');
	await mia.waitFor();
	check(await page.getByText("User mia added").count() === 1, "adding a user says so");
	check(/member/.test(await mia.locator("select").inputValue()) && /must change password/.test(await mia.textContent()),
	    "an added user is a member who must change the password");

	// The member's view.
	const m = await t.newContextPage();
	await signIn(m, "mia", "mia first password");
	await m.waitForURL(/#\/password/);
	await m.getByLabel("Current password").fill("mia first password");
	await m.getByLabel("New password", { exact: true }).fill("mia second password");
	await m.getByLabel("New password again").fill("mia second password");
	await m.getByRole("button", { name: "Change password" }).click();
	await m.getByText(/is healthy/).waitFor();
	const nav = await m.locator("#nav").textContent();
	check(!/Settings|Libraries|Jobs/.test(nav) && /API keys/.test(nav), "a member's navigation has no admin pages", nav);
	check(await m.getByRole("link", { name: "Download the support bundle" }).count() === 0, "a member is offered no support bundle");
	await m.goto("/#/settings?tab=users");
	await m.getByRole("heading", { name: "Admins only" }).waitFor();
	check(await t.titleIs(m, "Not allowed · ctxd"), "a member who opens Settings is told it is for admins");
	check(await m.evaluate(async () => (await fetch("/api/settings")).status) === 403, "and the API refuses the member (403)");
	await t.shot(m, "member-denied");
	await m.goto("/#/keys");
	await m.getByText("No API keys yet — create one above.").waitFor();
	check(true, "a member can open their API keys");

	// Disable, then reset the password.
	await page.reload();
	await mia.getByRole("button", { name: "Disable" }).click();
	await page.getByText("mia disabled: their sessions were ended.").waitFor();
	await m.reload();
	await m.waitForURL(/#\/signin/);
	check(true, "a disabled member's session ends: back to sign-in");
	await page.locator('tr[data-user="mia"]', { hasText: "disabled" }).waitFor();
	await page.locator('tr[data-user="mia"]').getByRole("button", { name: "Enable" }).click();
	await page.getByText("mia enabled.").waitFor();
	await page.locator('tr[data-user="mia"]', { hasText: "active" }).waitFor();
	await page.getByLabel("New password for mia").fill("mia reset password");
	await page.getByRole("button", { name: "Reset password" }).click();
	await page.getByText("Password of mia reset").waitFor();
	await signIn(m, "mia", "mia reset password");
	await m.waitForURL(/#\/password/);
	check(true, "after a reset the member signs in with the new password and must change it");
	await t.shot(page, "settings-users-mia");
});
