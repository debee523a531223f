// t0870: a git library's versions on the web UI's library page (t/t0870-ui-versions.sh):
// the Versions panel lists the indexed tag with its id and state, adds a tag (re-posting the
// entry with "versions"), removes one; a version's own page links back to its library. On a
// 360 px screen the versions table needs no sideways scrolling.
//   node t0870-versions.mjs BASE ADMIN_PASSWORD DB
import { execFileSync } from "node:child_process";
import { ui, signIn } from "./ui.mjs";

const [base, password, SQL] = process.argv.slice(2);
const t = ui(base);
const { check } = t;
// sql(q): q on the instance's store, either engine (t/lib/sql-run, the harness's _sql).
const sql = (q) => execFileSync(SQL, [q]).toString().trim();

// show(page, id): the library page of id, freshly loaded.
async function show(page, id) {
	await page.goto("about:blank");
	await page.goto("/#/libraries" + id);
	await page.locator("main h1").first().waitFor();
}

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.waitForURL((u) => !u.hash.startsWith("#/signin"));
	await show(page, "/test/kv?tab=versions");
	const rows = page.locator("#versions tbody tr");
	await rows.first().waitFor();
	check(await rows.count() === 1 && (await rows.first().textContent()).includes("v1.0") &&
	    (await rows.first().textContent()).includes("/test/kv/v1.0"), "the Versions panel lists v1.0 and its id");
	await t.tableOnAPhone(page, "#versions", "the versions table");
	await t.shot(page, "uiver-library");

	await page.getByLabel("Tag or branch").fill("v2.0");
	await page.locator("#add-version").click();
	check(await page.getByText(/Version v2.0 is queued for indexing/).waitFor().then(() => true, () => false),
	    "adding v2.0 says it is queued");
	check(sql("SELECT branch || ' ' || version_of FROM libraries WHERE id = '/test/kv/v2.0'") === "v2.0 /test/kv",
	    "v2.0 is stored as a version of /test/kv");
	await page.waitForFunction(() => document.querySelectorAll("#versions tbody tr").length === 2);
	check(true, "after the add the panel lists two versions");

	await rows.filter({ hasText: "v1.0" }).getByRole("button", { name: "Remove" }).click();
	check(await page.getByText(/Version v1.0 is being deleted/).waitFor().then(() => true, () => false),
	    "removing v1.0 says it is being deleted");
	check(/^(delete|)$/.test(sql("SELECT coalesce(max(state), '') FROM libraries WHERE id = '/test/kv/v1.0'")),
	    "v1.0 is being deleted (or gone)");

	await show(page, "/test/kv/v2.0");
	const back = page.locator("main a", { hasText: "/test/kv" }).filter({ hasNotText: "v2.0" }).first();
	check(await back.isVisible() && (await back.getAttribute("href")) === "#/libraries/test/kv",
	    "a version's page links to its library");
	check(await page.locator("#versions").count() === 0, "a version has no Versions panel of its own");
});
