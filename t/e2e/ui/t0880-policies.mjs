// t0880: the web UI's Policies tab (t/t0880-ui-policies.sh): each control with its one line
// of help, a save through PUT /api/policies, a bad glob refused next to its field (nothing
// saved), the try box saying whether a library id is allowed and why (the block list over
// the allow list, a switched-off type, the trust minimum), the audit trail of the changes,
// and, once the license has expired, the server's reason instead of the form.
//   node t0880-policies.mjs BASE ADMIN_PASSWORD CLOCK_FILE
import { writeFileSync, rmSync } from "node:fs";
import { ui, signIn } from "./ui.mjs";

const [base, password, CLOCK] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

const policies = (page) => page.evaluate(async () => (await fetch("/api/policies")).json());
const fieldStatus = (page, name) => page.locator(`.policy-form [data-field="${name}"] .field-status`);

async function openTab(page) {
	await page.goto("about:blank");
	await page.goto("/#/settings?tab=policies");
	await page.locator(".policy-audit h2").waitFor();
}

// shot(page, name): the screenshots; t.shot also checks the page fits a 360 px screen.
const shot = (page, name) => t.shot(page, name);

// tryIt(page, id, type, trust): the try box's answer.
async function tryIt(page, id, type, trust) {
	const box = page.locator(".policy-try");
	await box.getByLabel("Library id").fill(id);
	await box.getByLabel("Source type").selectOption(type);
	await box.getByLabel("Trust score").fill(trust === undefined ? "" : String(trust));
	const out = box.locator(".policy-result");
	await out.evaluate((n) => { n.textContent = ""; });
	await box.getByRole("button", { name: "Try" }).click();
	await out.filter({ hasText: /./ }).waitFor();
	return (await out.textContent()).trim();
}

async function form(page) {
	await openTab(page);
	check(await page.locator('.tabs a[aria-current="page"]').textContent() === "Policies", "Settings has a Policies tab");
	for (const label of ["Git repositories", "Websites", "llms.txt", "OpenAPI", "Other source types"])
		check(await page.getByLabel(label, { exact: true }).isChecked(), `${label}: on by default`);
	const helps = await page.locator(".policy-form .help").allTextContents();
	check(helps.length === 8 && helps.every((h) => h.length > 10 && !h.includes("\n")),
	    "each of the 8 controls is explained in one line", helps.join(" | "));
	check(/No change yet/.test(await page.locator(".policy-audit").textContent()), "no change yet in the audit trail");

	// A bad glob: the server's error next to the block list, nothing saved.
	await page.getByLabel("Websites", { exact: true }).uncheck();
	await page.getByLabel("Block list").fill("/vercel/*\n/bad glob");
	await page.getByRole("button", { name: "Save" }).click();
	await fieldStatus(page, "block").filter({ hasText: /./ }).waitFor();
	check(/block/.test(await fieldStatus(page, "block").textContent()),
	    "a glob with a blank: the server's error next to the block list", await fieldStatus(page, "block").textContent());
	check((await policies(page)).website === true, "and nothing was saved");

	await page.getByLabel("Block list").fill("/vercel/*");
	await page.getByLabel("Allow list").fill("/vercel/*\n/facebook/*");
	await page.getByLabel("Minimum trust score").fill("5");
	await page.getByRole("button", { name: "Save" }).click();
	await page.locator(".policy-form > .field-status").filter({ hasText: "Saved." }).waitFor();
	check(await fieldStatus(page, "block").textContent() === "", "a good save clears the field's error");
	const p = await policies(page);
	check(p.website === false && p.git === true && p.block.join() === "/vercel/*" &&
	    p.allow.join() === "/vercel/*,/facebook/*" && p.minTrust === 5, "the policies are saved", JSON.stringify(p));
	await openTab(page);
	check(!(await page.getByLabel("Websites", { exact: true }).isChecked()) &&
	    await page.getByLabel("Minimum trust score").inputValue() === "5" &&
	    await page.getByLabel("Allow list").inputValue() === "/vercel/*\n/facebook/*",
	    "after a reload the form shows the saved policies");
	const row = page.locator(".policy-audit tbody tr").first();
	check(/user admin \(session\)/.test(await row.textContent()) && /website: on → off/.test(await row.textContent()) &&
	    /block: empty → \/vercel\/\*/.test(await row.textContent()),
	    "the audit trail shows who changed what", await row.textContent());
}

async function tryBox(page) {
	check(await tryIt(page, "/vercel/next.js", "git") === "Blocked: blocked by policy: /vercel/* is on the block list",
	    "try: the block list wins over the allow list");
	check(await tryIt(page, "/facebook/react", "website") === "Blocked: blocked by policy: source type websites is off",
	    "try: a switched-off source type");
	check(await tryIt(page, "/facebook/react", "git", 3.1) === "Blocked: blocked by policy: trust score 3.1 is below the minimum 5",
	    "try: a trust score below the minimum");
	check(await tryIt(page, "/mongodb/docs", "git") === "Blocked: blocked by policy: /mongodb/docs is not on the allow list",
	    "try: not on the allow list");
	const ok = await tryIt(page, "/facebook/react", "git", 8);
	check(ok === "Allowed: allowed by policy", "try: allowed", ok);
	check(await page.locator(".policy-result.ok").count() === 1, "an allowed library is shown as a success");
	await shot(page, "policies");
	await page.locator(".policy-try").getByLabel("Library id").fill("");
	await page.locator(".policy-try").getByRole("button", { name: "Try" }).click();
	check(/Type a library id/.test(await page.locator('.policy-try .field-status').first().textContent()),
	    "try without an id: said next to the field");
}

async function expired(page) {
	// 40 days on: the license (30 days) and the session have expired; sign in again.
	writeFileSync(CLOCK, String(40 * 86400));
	await signIn(page, "admin", password);
	await page.waitForURL((u) => !/signin/.test(u.hash));
	await openTab(page);
	const notice = page.locator(".notice.error");
	await notice.waitFor();
	check(/public documentation is off: the license is expired/.test(await notice.textContent()),
	    "an expired license: the page says why instead of the form", await notice.textContent());
	check(await page.locator(".policy-form, .policy-try").count() === 0, "no form and no try box");
	check(await page.locator(".policy-audit tbody tr").count() === 1, "the audit trail is still shown");
	await shot(page, "policies-expired");
	rmSync(CLOCK, { force: true });
}

t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();
	await form(page);
	await tryBox(page);
	await expired(page);
});
