// t0830: the wizard's Who can read step end to end, the Add library form's warning of a
// repository read with the instance's token under anonymous reads, the job log's warning,
// and the server's labels on every Settings tab.
//   node t0830-who-can-read.mjs BASE ADMIN_PASSWORD PRIVATE_GIT_URL
import { ui, signIn } from "./ui.mjs";

const [base, password, gitUrl] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

// An anonymous read of /api/v2 from the page (no cookie): its HTTP status.
const anonRead = (page) => page.evaluate(async () =>
	(await fetch("/api/v2/libs/search?libraryName=requests&query=x", { credentials: "omit" })).status);

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);

	// The admin lands on the one step left.
	await page.getByRole("heading", { name: "Who can read" }).waitFor();
	check(/#\/setup/.test(page.url()), "the admin's sign-in opens the wizard at Who can read", page.url());
	const closed = page.getByLabel("Only people with an API key");
	const open = page.getByLabel("Anyone who reaches the server (anonymous reads)");
	check(await closed.isChecked(), "a step never saved offers the closed choice first");
	await t.shot(page, "who-step");
	await open.check();
	await t.shot(page, "who-step-chosen");
	await page.getByRole("button", { name: "Save and continue" }).click();
	await page.getByRole("heading", { name: "Setup is complete" }).waitFor();
	check(/4\. Who can read — done/.test(await page.locator(".steps").textContent()), "the step is done");
	check(await anonRead(page) === 200, "anonymous reads chosen: a read without a key is answered");

	// Reopened: the current choice, not the suggestion.
	await page.goto("/#/setup?step=who-can-read");
	await page.getByRole("heading", { name: "Who can read" }).waitFor();
	check(await page.getByLabel("Anyone who reaches the server (anonymous reads)").isChecked() &&
	    !(await page.getByLabel("Only people with an API key").isChecked()), "the reopened step shows the saved choice");
	check(/anonymous reads are on/.test(await page.locator(".readers .now").textContent()), "and says reads are anonymous now");

	// The Add library form: a repository on the host with a token, anonymous reads on.
	await page.goto("/#/libraries?add");
	const form = page.locator("form.add-library");
	const url = form.getByLabel("URL", { exact: true });
	await url.waitFor();
	const warn = page.locator(".credentials-warning");
	await url.fill("https://codeberg.org/acme/docs");
	check(await warn.isHidden(), "a repository on a host without a token: no warning");
	await url.fill(gitUrl);
	await warn.waitFor();
	const w = await warn.textContent();
	check(/Anonymous reads are on/.test(w) && /If this repository is private, it is read with the GitLab token \(git\.gitlab\.token\)/.test(w) &&
	    /anyone who reaches this server can then read its documentation/.test(w),
	    "a repository on the token's host: the warning says who could read it", w);
	check(await warn.getByRole("link", { name: "perm.require_mcp_auth" }).getAttribute("href") === "#/settings?setting=perm.require_mcp_auth",
	    "the warning links to the setting that closes reads");
	await t.shot(page, "who-add-warning");
	await form.locator("button[type=submit]").click();

	// The job: once the private repository was read with the token, its log warns.
	await page.waitForURL(/#\/jobs\/\d+/);
	const line = page.locator("tr.level-warning .log-line", { hasText: "anonymous reads are on" });
	await line.waitFor({ timeout: 60000 });
	check(/this repository is not public: it was read with the instance's credentials/.test(await line.textContent()),
	    "the job log warns that the private repository is readable by anyone", await line.textContent());
	await page.locator(".badge.ok", { hasText: "done" }).first().waitFor({ timeout: 60000 });
	await t.shot(page, "who-job-warning");
	await line.getByRole("link", { name: "perm.require_mcp_auth" }).click();
	const row = page.locator('[data-setting="perm.require_mcp_auth"]');
	await row.waitFor();
	check(await row.evaluate((r) => r.classList.contains("wanted")) && /Require MCP authentication/.test(await row.textContent()),
	    "the log's link opens the setting on the Permissions tab");
	await page.getByLabel("Require MCP authentication").check();
	await page.getByText("Require MCP authentication: on. Saved.").waitFor();
	check(await anonRead(page) === 401, "reads need a key now: a read without one is refused");

	await page.goto("about:blank");
	await page.goto("/#/libraries?add");
	await page.locator("form.add-library").getByLabel("URL", { exact: true }).fill(gitUrl);
	await page.waitForTimeout(300);
	check(await page.locator(".credentials-warning").isHidden(), "reads need a key: the form warns no more");

	// The state words: the API's, each explained on the Jobs and Libraries pages.
	await page.goto("/#/jobs");
	await page.locator("details.legend summary", { hasText: "What the states mean" }).click();
	const jobWords = await page.locator("details.legend dt").allTextContents();
	check(jobWords.join() === "queued,running,done,failed,cancelled", "Jobs explains each job state by its API word", jobWords.join());
	check(await page.locator("#jobs-state-filter option").allTextContents().then((o) => o.slice(1).join()) === jobWords.join(),
	    "the state filter offers the same words");
	await t.shot(page, "who-jobs-legend");
	await page.goto("/#/libraries");
	await page.locator("details.legend summary").click();
	const libWords = await page.locator("details.legend dt").allTextContents();
	check(libWords.join() === "initial,processing,finalized,error,delete,running,ok,failed,unfinished,degraded,cancelled",
	    "Libraries explains each library state and run status by its API word", libWords.join());
	check(await page.locator("td .badge", { hasText: "finalized" }).first().getAttribute("title") === "indexed: agents get answers from it" &&
	    await page.locator("td .badge", { hasText: "ok" }).first().getAttribute("title") === "the last run indexed everything",
	    "a state badge and a run badge carry their meaning as the title");
	await t.shot(page, "who-libraries-legend");

	// Every Settings tab: each setting's label is the server's, its raw name beside it.
	const { settings } = await page.evaluate(async () => (await fetch("/api/settings")).json());
	for (const tab of ["ai", "embeddings", "git", "integrations", "upstream", "permissions", "advanced"]) {
		await page.goto("about:blank");
		await page.goto("/#/settings?tab=" + tab);
		await page.locator("[data-setting]").first().waitFor();
		const rows = await page.locator("[data-setting]").evaluateAll((els) => els.map((r) =>
			[r.dataset.setting, (r.querySelector("label") || {}).textContent, (r.querySelector(".setting-name") || {}).textContent,
			    (r.querySelector(".help") || {}).textContent]));
		const wrong = rows.filter(([n, label, name, help]) => !settings[n] || label !== settings[n].label || name !== n ||
		    !help || !help.toLowerCase().startsWith(settings[n].help.slice(0, 20).toLowerCase()));
		check(rows.length > 0 && wrong.length === 0, `Settings › ${tab}: ${rows.length} settings, each with the server's label and help and its name`,
		    JSON.stringify(wrong));
		await t.shot(page, "who-settings-" + tab);
	}
});
