// t0825: what the setup wizard and Settings say each switch of what members can make the
// server read opens (one sentence each), and the switch perm.members_use_integrations
// toggled in Settings > Permissions, seen enforced on a member's wiki source.
//   node t0825-safe-defaults.mjs BASE ADMIN_PASSWORD MEMBER_KEY
import { ui, signIn } from "./ui.mjs";

const [base, password, memberKey] = process.argv.slice(2);
const t = ui(base);
const { check } = t;
const LABEL = "Allow members to use integrations";

// A member's wiki source (a new space each time): the status and the error.
let space = 0;
async function memberWiki() {
	const r = await fetch(base + "/api/libraries", { method: "POST",
	    headers: { "Content-Type": "application/json", Authorization: "Bearer " + memberKey },
	    body: JSON.stringify({ type: "wiki", url: "http://127.0.0.1:9/", spaceKey: "S" + ++space }) });
	const body = await r.json();
	return [r.status, body.error || ""];
}

// The sentences of class switch-opens on the page, once its heading h2 is shown.
async function opens(page, h2) {
	await page.getByRole("heading", { name: h2, exact: true }).waitFor();
	await page.locator(".switch-opens").first().waitFor();
	return (await page.locator(".switch-opens").allTextContents()).join(" | ");
}

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();

	// The wizard's git step: tokens are admins' unless the switch is on; private networks.
	await page.goto("/#/setup?step=git-tokens");
	let s = await opens(page, "Git tokens");
	check(s.includes("only admins may add those, unless " + LABEL + " is turned on"),
	    "the wizard's git step says a token's host is for admins unless the switch is on", s);
	check(s.includes("public addresses only") && s.includes("fetch.allowed_networks"),
	    "... and that private networks are reached only when listed in fetch.allowed_networks", s);
	await t.shot(page, "setup-git-tokens-defaults");

	// Settings: the git, integrations and advanced tabs say what they open.
	await page.goto("/#/settings?tab=git");
	await page.locator('[aria-current="page"]', { hasText: "Git tokens" }).waitFor();
	s = await opens(page, "Git tokens");
	check(/Only admins may add repositories from a host that has a token, unless Allow members to use integrations is on/.test(s),
	    "Settings > Git tokens: one sentence on who may use the tokens", s);
	await page.goto("/#/settings?tab=integrations");
	s = await opens(page, "Integrations");
	check(/Only admins may add wiki sources, and repositories read with the App, unless Allow members/.test(s),
	    "Settings > Integrations: one sentence on who may use the wiki and the App", s);
	await page.goto("/#/settings?tab=advanced");
	s = await opens(page, "Advanced");
	check(/public addresses only: a network listed in fetch\.allowed_networks is one that every user who may add a source can make it read/.test(s),
	    "Settings > Advanced: what listing a network opens", s);
	const help = await page.locator('[data-setting="fetch.allowed_networks"] .help').textContent();
	check(/empty: public addresses only/.test(help), "the field's help says the empty default is public addresses only", help);
	await t.shot(page, "settings-advanced-networks");

	// Permissions: the switch, off by default, opens the member's wiki source.
	await page.goto("/#/settings?tab=permissions");
	const box = page.getByLabel(LABEL);
	await box.waitFor();
	const what = await page.locator('[data-setting="perm.members_use_integrations"] .help').textContent();
	check(/wiki sources/.test(what) && /git token or the GitHub App/.test(what),
	    "the switch says in one sentence what it opens", what);
	let [st, err] = await memberWiki();
	check(!(await box.isChecked()) && st === 403 && err.includes("perm.members_use_integrations"),
	    "off by default: a member's wiki source gets 403 naming the setting", `${st} ${err}`);
	await box.check();
	await page.getByText(`${LABEL}: on. Saved.`).waitFor();
	[st, err] = await memberWiki();
	check(st === 202, "switched on in the page: the member's wiki source is accepted (202)", `${st} ${err}`);
	await t.shot(page, "settings-permissions-integrations");
	await box.uncheck();
	await page.getByText(`${LABEL}: off. Saved.`).waitFor();
	[st, err] = await memberWiki();
	check(st === 403, "switched off again: 403", `${st} ${err}`);
});
