// t0860: the web UI's GitOps tab (t/t0860-ui-gitops.sh): the configuration (a bad cron
// expression refused next to its field, the rest saved through PUT /api/gitops/config), Sync
// now with its counts and per-entry outcomes, the created libraries in the Libraries list
// with the GitOps badge, an invalid manifest (branch "broken") shown with file:line:column,
// the last sync's time in the browser's time zone, and a member who sees none of it.
//   node t0860-gitops.mjs BASE ADMIN_PASSWORD GITOPS_URL
import { ui, signIn } from "./ui.mjs";

const [base, password, GITOPS_URL] = process.argv.slice(2);
const t = ui(base);
const { check } = t;
const TZ = "Pacific/Chatham";	/* UTC+12:45/13:45: a time shown in UTC would not match */

const status = (page) => page.evaluate(async () => (await fetch("/api/gitops/status")).json());
const fieldStatus = (page, name) => page.locator(`.gitops-config [data-field="${name}"] .field-status`);

// openTab(page): Settings > GitOps, freshly loaded.
async function openTab(page) {
	await page.goto("about:blank");
	await page.goto("/#/settings?tab=gitops");
	await page.locator(".gitops-last h2").waitFor();
}

// shot(page, name): the screenshots; t.shot also checks the page fits a 360 px screen.
const shot = (page, name) => t.shot(page, name);

// syncNow(page): presses Sync now and waits for the run it shows.
async function syncNow(page) {
	const sync = page.locator(".gitops-sync");
	await sync.getByRole("button", { name: "Sync now" }).click();
	await page.waitForFunction(() => !document.querySelector(".gitops-sync button").disabled, null, { timeout: 60000 });
	await sync.locator(".gitops-run").waitFor();
	return sync.locator(".gitops-run");
}

async function configure(page) {
	await openTab(page);
	check(await page.locator('.tabs a[aria-current="page"]').textContent() === "GitOps", "Settings has a GitOps tab");
	check(/No sync yet/.test(await page.locator(".gitops-last").textContent()), "before any sync the last sync says so");
	check(await page.getByLabel("Manifest path").getAttribute("placeholder") === "repos.yaml" &&
	    await page.getByLabel("Sync schedule").inputValue() === "manual" && !(await page.getByLabel("Prune removed repositories").isChecked()),
	    "defaults: manifest path repos.yaml, Manual only, prune off");
	check(/snippets, embeddings and clones/.test(await page.locator('[data-field="prune"] .help').textContent()),
	    "the prune switch says what it deletes");
	check(await page.getByLabel("Cron expression").isHidden(), "the cron field shows only for a cron schedule");

	await page.getByLabel("Manifest repository URL").fill(GITOPS_URL);
	await page.getByLabel("Sync schedule").selectOption("cron");
	await page.getByLabel("Cron expression").fill("61 * * * *");
	await page.getByRole("button", { name: "Save" }).click();
	await fieldStatus(page, "cron").filter({ hasText: /./ }).waitFor();
	check(/minute/.test(await fieldStatus(page, "cron").textContent()),
	    "a bad cron expression: the server's error next to the cron field",
	    await fieldStatus(page, "cron").textContent());
	let s = await status(page);
	check(s.config.repoUrl === "" && s.config.schedule === "manual", "and nothing was saved (all or nothing)", JSON.stringify(s.config));

	await page.getByLabel("Cron expression").fill("15 3 * * 1-5");
	await page.getByLabel("Manifest repository URL").fill("ftp://127.0.0.1/manifest.git");
	await page.getByRole("button", { name: "Save" }).click();
	await fieldStatus(page, "repoUrl").filter({ hasText: /./ }).waitFor();
	check(/http or https/.test(await fieldStatus(page, "repoUrl").textContent()) &&
	    await fieldStatus(page, "cron").textContent() === "",
	    "a URL that is not http(s): the server's error next to the URL field, the cron error gone",
	    await fieldStatus(page, "repoUrl").textContent());
	await page.getByLabel("Manifest repository URL").fill(GITOPS_URL);
	await page.getByLabel("Enable GitOps sync").check();
	await page.getByRole("button", { name: "Save" }).click();
	await page.locator(".gitops-config > .field-status").filter({ hasText: "Saved." }).waitFor();
	check(await fieldStatus(page, "cron").textContent() === "", "a good save clears the field's error");
	s = await status(page);
	check(s.config.repoUrl === GITOPS_URL && s.config.schedule === "15 3 * * 1-5" && s.config.enabled === true &&
	    s.config.manifestPath === "repos.yaml" && s.config.branch === "" && s.config.prune === false,
	    "the configuration is saved", JSON.stringify(s.config));

	// A preset, and the form shows what is saved after a reload.
	await page.getByLabel("Sync schedule").selectOption("weekly");
	await page.getByRole("button", { name: "Save" }).click();
	await page.locator(".gitops-config > .field-status").filter({ hasText: "Saved." }).waitFor();
	await openTab(page);
	check(await page.getByLabel("Sync schedule").inputValue() === "weekly" && await page.getByLabel("Enable GitOps sync").isChecked() &&
	    await page.getByLabel("Manifest repository URL").inputValue() === GITOPS_URL,
	    "after a reload the form shows the saved configuration");
}

async function sync(page) {
	// The first Sync now asks the server not to wait (wait=0): it answers 202 with the run
	// queued, and the page follows it through GET /api/gitops/status.
	const answers = [];
	const onResponse = (r) => { if (r.url().includes("/api/gitops/reconcile")) answers.push(r.status()); };
	page.on("response", onResponse);
	await page.route("**/api/gitops/reconcile?wait=20", (route) =>
	    route.continue({ url: route.request().url().replace("wait=20", "wait=0") }));
	const run = await syncNow(page);
	await page.unrouteAll();
	check(answers.join() === "202", "Sync now: the server answered 202 (queued) and the page followed the run", answers.join());
	const text = await run.textContent();
	check(await run.getAttribute("data-state") === "done" && await run.locator("[data-outcome]").textContent() === "done" &&
	    /the manifest was applied/.test(text), "Sync now: the sync is done, the API's word with its meaning", text);
	const count = async (k) => (await run.locator(`[data-count="${k}"] strong`).textContent()).trim();
	const counts = [];
	for (const k of ["created", "updated", "unchanged", "pruned", "skipped", "failed"])
		counts.push(`${k}=${await count(k)}`);
	check(counts.join(" ") === "created=2 updated=0 unchanged=0 pruned=0 skipped=0 failed=1",
	    "Sync now shows the counts: 2 created, 1 failed", counts.join(" "));
	const failed = run.locator('tr[data-action="failed"]');
	check(await failed.count() === 1 && /wiki/.test(await failed.locator('td[data-label="Type"]').textContent()) &&
	    /wiki integration/.test(await failed.textContent()),
	    "the failed wiki entry's row says why", await failed.first().textContent());
	for (const id of ["/corpora/requests", "/corpora/axum"])
		check(await run.locator(`tr[data-id="${id}"][data-action="created"]`).count() === 1,
		    `the per-entry outcome: ${id} created`);
	check(/Sync now/.test(text), "the run's trigger is Sync now");
	const last = page.locator(".gitops-last .gitops-run");
	check(await last.getAttribute("data-run") === await run.getAttribute("data-run"),
	    "the last sync panel shows the same run");
	await shot(page, "gitops");

	// Again, the manifest unchanged: the server waits (200) and the sync is skipped.
	const again = await syncNow(page);
	check(answers.join() === "202,200" && await again.getAttribute("data-state") === "skipped" &&
	    await again.locator("[data-outcome]").textContent() === "skipped" &&
	    /processed already/.test(await again.textContent()) && await again.locator("tr").count() === 0,
	    "Sync now with the manifest unchanged: skipped, the commit was processed already", answers.join());
	page.off("response", onResponse);

	// The libraries appear, with their GitOps badge.
	await page.goto("about:blank");
	await page.goto("/#/libraries");
	await page.locator("main .view-libraries h1").waitFor();
	for (const id of ["/corpora/requests", "/corpora/axum"]) {
		const row = page.locator("main tr").filter({ has: page.getByRole("link", { name: id, exact: true }) });
		await row.waitFor();
		check(await row.locator(".badge.gitops").count() === 1, `${id} is in the Libraries list with the GitOps badge`);
	}
}

async function invalid(page) {
	await openTab(page);
	await page.getByLabel("Branch").fill("broken");
	await page.getByRole("button", { name: "Save" }).click();
	await page.locator(".gitops-config > .field-status").filter({ hasText: "Saved." }).waitFor();
	const run = await syncNow(page);
	check(await run.getAttribute("data-state") === "failed" && await run.locator("[data-outcome]").textContent() === "failed",
	    "an invalid manifest: the sync failed");
	const errs = await run.locator(".gitops-errors li").allTextContents();
	check(errs.some((e) => /^repos\.yaml:4:5: field 'maxPages' is not a field of a git/.test(e)),
	    "its error names the file, line and column", errs.join(" | "));
	check(/nothing was changed/.test(await run.textContent()), "and says nothing was changed");

	// A fresh load: the last sync is the failed one, its time in the browser's zone.
	await openTab(page);
	const last = page.locator(".gitops-last .gitops-run");
	check(await last.getAttribute("data-state") === "failed" &&
	    (await last.locator(".gitops-errors li").allTextContents()).some((e) => /^repos\.yaml:4:5:/.test(e)),
	    "the last sync shows the failure with file:line:column");
	const s = await status(page);
	const shown = (await last.locator("time").first().textContent()).trim();
	const want = await page.evaluate((iso) => new Date(iso).toLocaleString(undefined,
	    { dateStyle: "medium", timeStyle: "short" }), s.lastSync.finishedAt);
	const utc = await page.evaluate((iso) => new Date(iso).toLocaleString(undefined,
	    { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }), s.lastSync.finishedAt);
	check(shown === want && shown !== utc, `the last sync's time is in the browser's time zone (${shown})`, `want ${want}, UTC ${utc}`);
	await shot(page, "gitops-error");
}

async function member() {
	const m = await t.newContextPage();
	await signIn(m, "mia", "mia first password");
	await m.waitForURL(/#\/password/);
	await m.getByLabel("Current password").fill("mia first password");
	await m.getByLabel("New password", { exact: true }).fill("mia second password");
	await m.getByLabel("New password again").fill("mia second password");
	await m.getByRole("button", { name: "Change password" }).click();
	await m.getByText(/is healthy/).waitFor();
	await m.goto("/#/settings?tab=gitops");
	await m.getByRole("heading", { name: "Admins only" }).waitFor();
	check(await m.getByRole("button", { name: "Sync now" }).count() === 0 && await m.locator(".gitops-config, .gitops-last").count() === 0,
	    "a member sees no GitOps card");
	check(await m.evaluate(async () => (await fetch("/api/gitops/status")).status) === 403,
	    "and the GitOps API refuses the member (403)");
}

t.run(async () => {
	const page = await t.start({ timezoneId: TZ });
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();
	await configure(page);
	await sync(page);
	await invalid(page);
	await member();
});
