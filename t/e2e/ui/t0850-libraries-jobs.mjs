// t0850: the web UI's Libraries and Jobs pages (t/t0850-ui-libraries.sh): the add forms'
// browser checks and the server's 400 next to its field, a private repository added and
// its job watched to done with the progress bar moving, the list (GitOps badge, filter), a
// library's snippet browser and try box (and its "Why these snippets?" table of candidates),
// cancelling a job, the libraries list, a library's last runs, the candidates and the jobs
// list on a 360 px screen, deleting a library.
//   node t0850-libraries-jobs.mjs BASE ADMIN_PASSWORD GIT_URL SLOW_URL DB
// GIT_URL: a private repository the server has a token for; SLOW_URL: a public one with
// more files, to cancel; DB: the database, for a GitOps-managed row.
import { execFileSync } from "node:child_process";
import { ui, signIn } from "./ui.mjs";

const [base, password, GIT_URL, SLOW_URL, SQL] = process.argv.slice(2);
// sql(q): q on the instance's store, either engine (t/lib/sql-run, the harness's _sql).
const sql = (q) => execFileSync(SQL, [q]).toString().trim();
const t = ui(base);
const { check } = t;

// go(page, hash): shows a view (a fresh load of the app) and waits until its h1 is there.
async function go(page, hash) {
	await page.goto("about:blank");
	await page.goto("/" + hash);
	const view = { libraries: "libraries", jobs: "jobs" }[hash.replace(/^#\//, "").split(/[/?]/)[0]] || "";
	await page.locator(`main .view-${view} h1`).first().waitFor();
}

// The state shown on a job page, polled until it is one of want (or the time runs out);
// the distinct values of its progress bar seen on the way go to seen.
async function watchJob(page, want, seconds, seen) {
	const deadline = Date.now() + seconds * 1000;
	let state = "";
	while (Date.now() < deadline) {
		state = (await page.locator("#job-state").textContent()).trim();
		const bar = page.locator("#job-progress progress");
		if (seen && await bar.count() > 0) {
			const v = await bar.evaluate((b) => b.hasAttribute("value") ? `${b.value}/${b.max}` : "indeterminate");
			seen.add(v);
		}
		if (want.includes(state))
			break;
		await page.waitForTimeout(150);
	}
	return state;
}

// shot(page, name): the screenshots; t.shot also checks the page fits a 360 px screen.
const shot = (page, name) => t.shot(page, name);

// The status line of a form row (the one with data-field=name).
const fieldStatus = (page, name) => page.locator(`[data-field="${name}"] .field-status`);

async function validation(page) {
	await go(page, "#/libraries?add");
	const form = page.locator("form.add-library");
	const submit = form.locator("button[type=submit]");
	let requests = 0;
	const count = (r) => { if (r.url().includes("/api/libraries") && r.method() === "POST") requests++; };
	page.on("request", count);
	await form.getByLabel("URL", { exact: true }).fill("ftp://example.com/a/b");
	await form.getByLabel("Branch (optional)", { exact: true }).fill("a..b");
	await form.getByLabel("Folders (optional)", { exact: true }).fill("docs\n../etc");
	await submit.click();
	check(/http or https/.test(await fieldStatus(page, "url").textContent()), "git: a non-http URL is refused next to the URL field");
	check(/not a valid git branch/.test(await fieldStatus(page, "branch").textContent()), "git: a bad branch name is refused next to its field");
	check(/'\.\.'/.test(await fieldStatus(page, "folders").textContent()), "git: a folder with '..' is refused next to its field");
	check(await form.getByLabel("URL", { exact: true }).getAttribute("aria-invalid") === "true", "the field is marked invalid for assistive technology");
	check(requests === 0, "nothing is sent while the browser finds errors");

	await form.getByLabel("Source type", { exact: true }).selectOption("website");
	await form.getByLabel("URL", { exact: true }).fill("https://docs.example.com/");
	await form.getByLabel("Maximum depth (optional)", { exact: true }).fill("21");
	await submit.click();
	check(/from 0 to 20/.test(await fieldStatus(page, "maxDepth").textContent()), "website: maxDepth 21 is refused (0 to 20)");
	check(/From 0 to 20/.test(await form.locator('[data-field="maxDepth"] .help').textContent()),
	    "website: the help says the server's bounds of maxDepth");
	await form.getByLabel("Source type", { exact: true }).selectOption("llmstxt");
	await form.getByLabel("URL", { exact: true }).fill("https://docs.example.com/docs.txt");
	await submit.click();
	check(/llms\.txt/.test(await fieldStatus(page, "url").textContent()), "llms.txt: a URL naming another file is refused");
	await form.getByLabel("Source type", { exact: true }).selectOption("wiki");
	check(await form.getByLabel("URL", { exact: true }).isVisible() &&
	    /wiki's site/.test(await form.locator('[data-field="url"] .help').textContent()),
	    "wiki: the form asks for the wiki's site, which an entry needs");
	await form.getByLabel("Space key", { exact: true }).fill("bad key!");
	await submit.click();
	check(/Letters, digits/.test(await fieldStatus(page, "spaceKey").textContent()), "wiki: a bad space key is refused");
	await form.getByLabel("Some pages", { exact: true }).check();
	check(await form.getByLabel("Page URLs", { exact: true }).isVisible() && await form.getByLabel("Include sub-pages", { exact: true }).isVisible(),
	    "wiki: the pages form has page URLs and include sub-pages");
	await shot(page, "uilib-add");
	await form.getByLabel("Source type", { exact: true }).selectOption("openapi");
	await form.getByLabel("Upload a file", { exact: true }).check();
	check(await form.getByLabel("OpenAPI file", { exact: true }).isVisible(), "OpenAPI: a file can be uploaded");
	await submit.click();
	check(/Choose a file/.test(await fieldStatus(page, "openapiFile").textContent()), "OpenAPI upload: a file is required");
	check(requests === 0, "still nothing sent");

	// What only the server knows: its 400 is shown next to the field it names.
	await form.getByLabel("Source type", { exact: true }).selectOption("git");
	await form.getByLabel("URL", { exact: true }).fill("https://" + "a".repeat(250) + ".example.com:8080/owner/repo");
	await submit.click();
	await page.waitForFunction(() => /too long a host/.test(
	    document.querySelector('[data-field="url"] .field-status')?.textContent || ""));
	check(requests === 1, "a valid form is sent");
	check(/field 'repoUrl' has too long a host/.test(await fieldStatus(page, "url").textContent()),
	    "the server's 400 error is shown next to the field it names");
	page.off("request", count);
}

async function addAndWatch(page) {
	await go(page, "#/libraries");
	await page.getByRole("button", { name: "Add library" }).click();
	const form = page.locator("form.add-library");
	await form.getByLabel("URL", { exact: true }).fill(GIT_URL);
	await form.getByLabel("Exclude files (optional)", { exact: true }).fill("HISTORY.md");
	await form.locator("button[type=submit]").click();
	await page.waitForURL((u) => /^#\/jobs\/\d+$/.test(u.hash), { timeout: 10000 });
	const jobId = new URL(page.url()).hash.split("/")[2];
	check(/^\d+$/.test(jobId), `adding the private repository opens its job page (job ${jobId})`);
	const seen = new Set();
	const state = await watchJob(page, ["done", "failed", "cancelled"], 120, seen);
	check(state === "done", `the job reaches done (${state})`);
	const partial = [...seen].filter((v) => /^\d+\/\d+$/.test(v) && v.split("/")[0] !== v.split("/")[1] && v.split("/")[0] !== "0");
	check(partial.length >= 2, `the progress bar moved while the job ran (${[...seen].join(", ")})`);
	check(await page.locator("#job-progress progress").evaluate((b) => b.value === b.max), "and is full when done");
	check(/documents parsed/.test(await page.locator("#job-counts").textContent()), "the counts say what was parsed");
	await page.locator("table.log").filter({ hasText: /indexed commit/ }).waitFor();
	const levels = await page.locator("table.log tbody tr td:nth-child(2)").allTextContents();
	check(levels.length > 2 && levels.every((l) => ["info", "warning", "error"].includes(l.trim())), "the log shows its lines with levels");
	check(await page.locator("table.log tbody tr time").count() === levels.length, "and times");
	check(await page.locator("#cancel-job").count() === 0, "a finished job offers no cancel");
	await shot(page, "uilib-job");
	return jobId;
}

async function library(page, id) {
	await go(page, "#/libraries");
	const row = page.locator(`tr[data-lib="${id}"]`);
	check(await row.waitFor().then(() => true, () => false) && await row.count() === 1, "the library is listed");
	check(/finalized/.test(await row.textContent()) && /ok/.test(await row.textContent()), "as finalized (the API's word), its last run ok");
	check(/agents get answers/.test(await row.locator(".badge").first().getAttribute("title")), "the state's badge says what it means");
	check(await page.locator('tr[data-lib="/gitops/managed"] .badge.gitops').count() === 1 &&
	    await row.locator(".badge.gitops").count() === 0, "the GitOps badge marks the managed library only");
	await page.getByLabel("Filter", { exact: true }).fill("nothing like it");
	check(await page.getByText("No library matches the filter.").isVisible(), "the filter box hides what does not match");
	await page.getByLabel("Filter", { exact: true }).fill("REQUESTS");
	check(await row.isVisible() && await page.locator('tr[data-lib="/gitops/managed"]').count() === 0, "and shows what does");
	await page.getByLabel("Filter", { exact: true }).fill("");
	await t.tableOnAPhone(page, "table.libraries", "the libraries list");
	await shot(page, "uilib-libraries");

	await row.getByRole("link").first().click();
	await page.locator("dl.kv").first().waitFor();
	check(/HISTORY\.md/.test(await page.locator("dl.kv").first().textContent()), "the detail shows the settings given (excludeFiles)");
	await page.locator('#set-h', { hasText: "About this library" }).waitFor();
	await page.locator('dt[data-field="excludeFiles"]', { hasText: "Exclude files" }).waitFor({ timeout: 10000 }).catch(() => {});
	const dtText = await page.locator('dt[data-field="excludeFiles"]').textContent();
	check(dtText === "Exclude files", "the Overview names a source setting by its field label, not its raw name", dtText);
	check(/finalized\s*indexed: agents get answers from it/.test(await page.locator("dl.kv").first().textContent()),
	    "the page says what the state means");
	const tabs = await page.locator("nav.tabs a").allTextContents();
	check(JSON.stringify(tabs) === JSON.stringify(["Overview", "Try a question", "Snippets", "Runs", "Versions", "Settings"]),
	    `the page's sections are tabs, Try a question second (${tabs.join(", ")})`);
	await page.locator("#tab-snippets").click();
	check(/[?&]tab=snippets$/.test(new URL(page.url()).hash), "a tab has its own address");
	await page.locator("#snippet-count").filter({ hasText: /Snippets 1–10 of/ }).waitFor();
	const total = Number((await page.locator("#snippet-count").textContent()).match(/of ([\d,]+)/)[1].replace(/,/g, ""));
	check(total > 20, `the snippet browser shows the first 10 of ${total}`);
	const first = await page.locator("article.snippet").first().getAttribute("data-id");
	await page.locator("#snippets-next").click();
	await page.locator("#snippet-count").filter({ hasText: /Snippets 11–20 of/ }).waitFor();
	const second = await page.locator("article.snippet").first().getAttribute("data-id");
	check(first !== second && await page.locator("article.snippet").count() === 10, "Next shows the following 10");
	await page.locator("#snippets-prev").click();
	await page.locator("#snippet-count").filter({ hasText: /Snippets 1–10 of/ }).waitFor();
	check(await page.locator("article.snippet").first().getAttribute("data-id") === first, "Previous goes back");
	await page.getByLabel("Filter snippets", { exact: true }).fill("session");
	await page.getByRole("button", { name: "Filter", exact: true }).click();
	await page.locator("#snippet-count").filter({ hasText: /holding "session"/ }).waitFor();
	const arts = await page.locator("article.snippet").allTextContents();
	check(arts.length > 0 && arts.every((t) => /session/i.test(t)), "the filter keeps snippets holding the words");
	check(await page.locator("article.snippet pre code").count() > 0 && await page.locator("article.snippet figcaption").count() > 0,
	    "code is shown with its language");
	check(await page.locator("article.snippet").first().getByText("Source:").count() === 1, "each snippet shows its source");
	check(await page.locator("article.snippet mark").count() > 0 &&
	    (await page.locator("article.snippet mark").allTextContents()).every((m) => m.toLowerCase() === "session"),
	    "the filter's word is marked in the snippets");
	check(await page.locator("article.snippet .snippet-body p").count() > 0 &&
	    !(await page.locator("article.snippet .snippet-body > p, article.snippet .snippet-body li").allTextContents())
		.some((t) => /```|^#+ |^[-*] /.test(t)),
	    "prose is shown as paragraphs, not raw Markdown");
	await page.locator("#tab-try").click();

	// A question of more than 20 candidates (44), a few of them below the stop ratio, the
	// answer's order not theirs.
	const question = "How do I use a session with cookies and headers?";
	await page.getByLabel("Question", { exact: true }).fill(question);
	await page.getByRole("button", { name: "Ask" }).click();
	await page.locator("#try-meta").waitFor();
	const meta = await page.locator("#try-meta").textContent();
	const answer = await page.locator("pre.answer").textContent();
	check(/^[\d,]+ tokens · \d+ ms$/.test(meta), `the try box shows tokens and time (${meta})`);
	check(await page.locator("pre.answer").evaluate((p) => getComputedStyle(p).wordBreak === "normal" &&
	    getComputedStyle(p).whiteSpace === "pre-wrap"), "the answer wraps at word boundaries");
	const direct = await page.evaluate(async (u) => (await fetch(u)).text(),
	    "/api/v2/context?" + new URLSearchParams({ libraryId: id, query: question }));
	check(answer === direct && answer.length > 100, "and exactly the text an agent receives");
	check(Number(meta.split(" ")[0].replace(/,/g, "")) === Math.ceil(new TextEncoder().encode(answer).length / 4),
	    "its token count is the server's");
	await why(page, id, question, answer);

	// With MCP authentication required, an agent (and the box) needs a key.
	sql("DELETE FROM settings WHERE name = 'perm.require_mcp_auth'; INSERT INTO settings (name, value, " +
	    "updated_at) VALUES ('perm.require_mcp_auth', 'true', '2026-01-01T00:00:00Z')");
	await page.getByRole("button", { name: "Ask" }).click();
	const refused = page.locator("#try-answer .error");
	check(await refused.waitFor().then(() => true, () => false) && /key/.test(await refused.textContent()),
	    "with MCP authentication required, the box says a key is needed");
	const keyPage = await page.context().newPage();
	await keyPage.goto("/#/keys");
	await keyPage.getByLabel("Key name", { exact: true }).fill("try box");
	await keyPage.getByRole("button", { name: "Create API key" }).click();
	const apiKey = await keyPage.locator("#new-key-value").inputValue();
	await keyPage.close();
	await page.getByLabel("API key (optional)", { exact: true }).fill(apiKey);
	await page.getByRole("button", { name: "Ask" }).click();
	check(await page.locator("#try-meta").waitFor().then(() => true, () => false) &&
	    await page.locator("pre.answer").textContent() === answer, "with a key it answers the same text");
	sql("DELETE FROM settings WHERE name = 'perm.require_mcp_auth'");
	await shot(page, "uilib-library-try");
	await page.locator("#tab-runs").click();
	await page.locator("section[aria-labelledby=runs-h] table").waitFor();
	await t.tableOnAPhone(page, "section[aria-labelledby=runs-h] table", "the library's last runs");
	await page.locator("#tab-snippets").click();
	await page.locator("#snippet-count").filter({ hasText: /Snippets 1–10 of/ }).waitFor();
	await shot(page, "uilib-library-snippets");
	await page.locator("#tab-overview").click();
	await page.locator("dl.kv").first().waitFor();
	await shot(page, "uilib-library");

	await page.getByRole("button", { name: "Re-index" }).click();
	const queued = page.locator("main .field-status").filter({ hasText: /Re-indexing is queued \(job \d+\)/ });
	check(await queued.waitFor().then(() => true, () => false), "Re-index queues a job and says so");
	await queued.getByRole("link", { name: "Follow it" }).click();
	check(await watchJob(page, ["done", "failed"], 60) === "done", "the re-index job is done");
	check(await page.locator("table.log").filter({ hasText: /is already indexed/ }).waitFor().then(() => true, () => false),
	    "its log says the commit was already indexed");
	await librarySettings(page, id);
}

// librarySettings(page, id): the Settings tab edits the library through POST /api/libraries
// (the validation of every source entry): filled with the stored values, the browser's and
// the server's refusals next to their fields, a change saved end to end and re-indexed.
async function librarySettings(page, id) {
	await page.goto("about:blank");
	await page.goto("/#/libraries" + id + "?tab=settings");
	const form = page.locator("form.lib-settings");
	await form.locator('[data-field="excludeFiles"] textarea').waitFor();
	check(await form.getByLabel("Exclude files", { exact: true }).inputValue() === "HISTORY.md",
	    "the Settings tab shows the stored settings (excludeFiles)");
	const posts = [], patches = [];
	const count = (r) => {
		if (r.url().endsWith("/api/libraries") && r.method() === "POST")
			posts.push(r.postDataJSON());
		if (r.method() === "PATCH")
			patches.push(r.url().replace(/^https?:\/\/[^/]+/, "") + " " + r.postData());
	};
	page.on("request", count);
	const button = form.locator("button[type=submit]");
	check(await button.textContent() === "Save" && await button.isDisabled() &&
	    /No unsaved changes/.test(await form.textContent()), "with nothing changed, Save is off and says so");
	// A new title alone: saved at once through PATCH, no job.
	const jobs = () => sql(`SELECT count(*) FROM jobs WHERE library_id = '${id}'`);
	const jobs0 = jobs();
	await form.getByLabel("Title", { exact: true }).fill("Requests, renamed");
	check(await button.textContent() === "Save" && !(await button.isDisabled()) &&
	    /saved at once, no re-index/.test(await form.textContent()), "a new title offers Save, without a re-index");
	await button.click();
	check(await form.locator(".field-status").filter({ hasText: /^Saved\.$/ }).waitFor().then(() => true, () => false),
	    "saving the title says Saved.");
	check(patches.length === 1 && patches[0] === "/api/libraries" + id + ' {"title":"Requests, renamed"}' && posts.length === 0,
	    "it went through PATCH with the title alone", JSON.stringify(patches));
	check(jobs() === jobs0, "no job was queued for a new title");
	const named = await page.evaluate(async (u) => (await fetch(u)).json(), "/api/libraries" + id);
	check(named.title === "Requests, renamed", "the library has the new title", named.title);
	check(await button.isDisabled(), "saved, nothing is left to save");
	check(await page.locator("main h1").textContent() === "Requests, renamed", "the page's heading shows the new title");
	await shot(page, "uilib-library-settings-renamed");
	await form.getByLabel("Branch", { exact: true }).fill("a..b");
	check(await button.textContent() === "Save and re-index" && /re-indexes the library/.test(await form.textContent()),
	    "a changed source setting turns the button into Save and re-index");
	await form.getByRole("button", { name: "Save and re-index" }).click();
	check(/not a valid git branch/.test(await form.locator('[data-field="branch"] .field-status').textContent()) && posts.length === 0,
	    "a bad branch is refused next to its field, nothing sent");
	await form.getByLabel("Branch", { exact: true }).fill("");
	await form.getByLabel("Folders", { exact: true }).fill("docs\nx".replace("x", "a".repeat(300)));
	await form.getByRole("button", { name: "Save and re-index" }).click();
	check(posts.length === 0 && /characters/.test(await form.locator('[data-field="folders"] .field-status').textContent()),
	    "a folder over the server's bound is refused in the browser");
	await form.getByLabel("Folders", { exact: true }).fill("");
	await form.getByLabel("Description", { exact: true }).fill("HTTP for humans, described here.");
	await form.getByLabel("Exclude folders", { exact: true }).fill("tests");
	await form.getByRole("button", { name: "Save and re-index" }).click();
	const saved = form.locator(".field-status").filter({ hasText: /re-indexing with these settings is queued \(job \d+\)/ });
	check(await saved.waitFor().then(() => true, () => false), "saving says the re-index is queued");
	check(posts.length === 1 && posts[0].url && posts[0].type === "git" && JSON.stringify(posts[0].excludeFiles) === '["HISTORY.md"]',
	    "the saved entry keeps the settings not changed", JSON.stringify(posts[0]));
	const lib = await page.evaluate(async (u) => (await fetch(u)).json(), "/api/libraries" + id);
	check(lib.description === "HTTP for humans, described here." && JSON.stringify(lib.settings.excludeFolders) === '["tests"]',
	    "the library has the new description and exclusions", JSON.stringify(lib));
	await shot(page, "uilib-library-settings");
	await saved.getByRole("link", { name: "Follow it" }).click();
	check(await watchJob(page, ["done", "failed"], 60) === "done", "the re-index with the new settings is done");
	page.off("request", count);
}

// why(page, id, question, answer): "Why these snippets?" under the answer shows what
// GET /api/libraries/ID/explain says of the same question (fetched here too, to compare):
// the summary, the candidates (20, then all), the placed ones marked, in the answer's order;
// the table on a 360 px screen; an error of the endpoint shown as the box shows its others.
async function why(page, id, question, answer) {
	const x = await page.evaluate(async (u) => (await fetch(u)).json(),
	    "/api/libraries/" + id.replace(/^\//, "") + "/explain?" + new URLSearchParams({ query: question }));
	const n = x.candidates.length;
	check(n > 20 && x.placed > 0, `the explain API has ${n} candidates for the question, ${x.placed} placed`);
	await page.getByRole("button", { name: "Why these snippets?" }).click();
	const table = page.locator("#why-table");
	check(await table.waitFor().then(() => true, () => false), "Why these snippets? shows the candidates table");
	const summary = await page.locator("#why-summary").textContent();
	check(summary === `Search terms: ${x.terms.join(", ")}. The answer holds ${x.placed} of ${n} candidates, ` +
	    `${x.used.toLocaleString("en-US")} of ${x.tokens.toLocaleString("en-US")} tokens; ${x.ranking} ranking.`,
	    "the summary gives the terms, what the answer holds of the candidates and the budget, and the ranking", summary);
	const rows = table.locator("tbody tr");
	check(await rows.count() === 20, `the first 20 candidates are shown (${await rows.count()})`);
	const all = page.getByRole("button", { name: `Show all ${n}`, exact: true });
	check(await all.isVisible(), `with a button Show all ${n}`);
	// What a row shows of candidate c: rank, score, tokens, outcome, section and source.
	const want = (c) => [`#${c.rank}`, c.score.toFixed(2), c.tokens.toLocaleString("en-US"),
	    c.place > 0 ? `in the answer, place ${c.place}${c.fate === "cut" ? ", cut to fit" : ""}` : c.why,
	    (c.breadcrumb || c.title || "(untitled)") + (c.source || "")];
	const shown = async () => rows.evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
	let got = await shown();
	check(JSON.stringify(got[0]) === JSON.stringify(want(x.candidates[0])),
	    `the first row is the first candidate: ${got[0][3]}`, JSON.stringify(got[0]) + " but the API: " + JSON.stringify(want(x.candidates[0])));
	await all.click();
	check(await rows.count() === n && await all.count() === 0, `Show all shows all ${n} (${await rows.count()})`);
	got = await shown();
	const differ = x.candidates.findIndex((c, i) => JSON.stringify(got[i]) !== JSON.stringify(want(c)));
	check(got.length === n && differ === -1, "every row says what the explain API says of its candidate",
	    differ === -1 ? `${got.length} rows` : `row ${differ + 1}: ${JSON.stringify(got[differ])}, the API: ${JSON.stringify(want(x.candidates[differ]))}`);
	// The rows marked as in the answer are the answer's snippets, in its order.
	const sources = answer.split("\n").filter((l) => l.startsWith("Source: ")).map((l) => l.slice(8));
	const placed = await table.locator("tbody tr.placed").evaluateAll((trs) => trs.map((tr) =>
	    [Number(tr.dataset.place), tr.querySelector("td:last-child .muted").textContent]));
	check(placed.length === sources.length && placed.length === x.placed,
	    `the rows marked in the answer are as many as its snippets (${placed.length}, ${sources.length} Source lines)`);
	check(JSON.stringify(placed.sort((a, b) => a[0] - b[0]).map((p) => p[1])) === JSON.stringify(sources),
	    "by place they are the answer's sources, in order", JSON.stringify(placed) + "\n" + JSON.stringify(sources));
	const bg = (sel) => table.locator(sel).first().evaluate((tr) => getComputedStyle(tr).backgroundColor);
	check(await bg("tbody tr.placed") !== await bg("tbody tr:not(.placed)"), "they are shaded apart from the others");
	await t.tableOnAPhone(page, "#why-table", "the candidates table");
	await shot(page, "uilib-why");

	// An error of the endpoint (its answer for a library it does not hold) is shown in words.
	await page.route("**/explain?*", async (route) => route.fulfill({ response: await route.fetch({
	    url: route.request().url().replace(/\/api\/libraries\/.*\/explain/, "/api/libraries/tests/nothing/explain") }) }));
	await page.getByRole("button", { name: "Why these snippets?" }).click();
	const err = page.locator("#try-why [role=alert]");
	check(await err.waitFor().then(() => true, () => false) &&
	    /library \/tests\/nothing does not exist here/.test(await err.textContent()) && await table.count() === 0,
	    "an error of the explain API is shown as the box's errors are, in its words");
	await page.unroute("**/explain?*");

	// A budget the agent's endpoint raises (-5: 1,000 tokens) is explained as it was used.
	await page.getByLabel("Token budget (optional)", { exact: true }).fill("-5");
	await page.getByRole("button", { name: "Ask" }).click();
	await page.locator("#try-meta").waitFor();
	const small = (await page.locator("pre.answer").textContent()).split("\n").filter((l) => l.startsWith("Source: ")).length;
	await page.getByRole("button", { name: "Why these snippets?" }).click();
	check(await table.waitFor().then(() => true, () => false) &&
	    / of 1,000 tokens;/.test(await page.locator("#why-summary").textContent()) &&
	    await table.locator("tbody tr.placed").count() === small,
	    `a budget of -5 is explained as the 1,000 tokens the answer had (${small} snippets)`);
	await page.getByLabel("Token budget (optional)", { exact: true }).fill("");
}

// jobsOnAPhone(page): at 360 px the jobs list needs no sideways scrolling (neither the page
// nor the table's scroll box is wider than the screen) and each job's library, kind, state
// and progress (the bar and its words) are within the screen; at 1440 px it is a table
// with its column heads.
async function jobsOnAPhone(page) {
	const vp = page.viewportSize();
	await page.setViewportSize({ width: 360, height: 740 });
	await page.waitForTimeout(50);
	const m = await page.evaluate(() => {
		const doc = document.documentElement, wrap = document.querySelector("table.jobs").parentElement;
		const off = [];
		document.querySelectorAll("table.jobs tbody tr").forEach((tr) => {
			// the cells are td 1 library, 2 kind, 3 state, 4 progress (a bar and its words,
			// or only words when the job stopped)
			const cell = (n, sel) => tr.querySelector(`td:nth-of-type(${n})${sel}`);
			const parts = { library: cell(1, ""), kind: cell(2, ""), state: cell(3, " .badge"),
			    bar: cell(4, " progress"), words: cell(4, " .progress .small") || cell(4, " > .muted") };
			for (const [name, e] of Object.entries(parts)) {
				if (!e || (e.tagName !== "PROGRESS" && !e.textContent.trim()))
					continue;
				const r = e.getBoundingClientRect();
				if (!(r.width > 0 && r.left >= 0 && r.right <= innerWidth))
					off.push(`job ${tr.dataset.job} ${name}: ${Math.round(r.left)}–${Math.round(r.right)}`);
			}
		});
		return { doc: [doc.scrollWidth, doc.clientWidth], wrap: [wrap.scrollWidth, wrap.clientWidth],
		    bars: document.querySelectorAll("table.jobs tbody progress").length, off };
	});
	check(m.doc[0] <= m.doc[1], `at 360 px the jobs page does not scroll sideways (${m.doc[0]} px in ${m.doc[1]})`);
	check(m.wrap[0] <= m.wrap[1], `nor does the jobs table in its box (${m.wrap[0]} px in ${m.wrap[1]})`);
	check(m.bars >= 2 && m.off.length === 0, `each job's library, kind, state and progress (${m.bars} bars) are on screen`,
	    m.off.join("\n"));
	await page.setViewportSize({ width: 1440, height: 900 });
	await page.waitForTimeout(50);
	check(await page.locator("table.jobs thead").isVisible() &&
	    await page.locator("table.jobs tbody tr").first().evaluate((tr) => getComputedStyle(tr).display === "table-row"),
	    "at 1440 px the jobs list is a table with its column heads");
	await page.setViewportSize(vp);
}

async function cancelAndDelete(page) {
	await go(page, "#/libraries?add");
	const form = page.locator("form.add-library");
	await form.getByLabel("URL", { exact: true }).fill(SLOW_URL);
	await form.locator("button[type=submit]").click();
	await page.waitForURL((u) => /^#\/jobs\/\d+$/.test(u.hash), { timeout: 10000 });
	await watchJob(page, ["running"], 30);
	await page.locator("#job-progress progress[value]").waitFor({ timeout: 30000 });
	await page.locator("#cancel-job").click();
	const asked = await page.locator("main .field-status").filter({ hasText: /Cancellation requested/ })
	    .waitFor({ timeout: 10000 }).then(() => true, () => false);
	check(asked, "cancel asks the worker to stop, and says so");
	const state = await watchJob(page, ["cancelled", "done", "failed"], 30);
	check(state === "cancelled", `the job ends cancelled (${state})`);
	check(/cancelled/.test(await page.locator("#job-message").textContent()), "its message says so");
	await go(page, "#/jobs");
	await page.locator("table.jobs tbody tr").nth(3).waitFor();
	check(await page.locator("table.jobs tbody tr").count() === 4, "the jobs list shows the four jobs");
	await jobsOnAPhone(page);
	await shot(page, "uilib-jobs");

	const libLink = page.locator("table.jobs tbody tr").first().locator("td a").first();
	const libId = (await libLink.textContent()).trim();
	await libLink.click();
	await page.locator("#delete-library").click();
	const warning = await page.locator("main .warning").textContent();
	check(warning.includes("Delete " + libId + "?"), "delete asks for a confirmation naming the library");
	await page.getByRole("button", { name: "Keep it" }).click();
	check(await page.locator("#delete-library").isVisible(), "keeping it changes nothing");
	await page.locator("#delete-library").click();
	await page.getByRole("button", { name: "Delete " + libId }).click();
	await page.waitForURL((u) => /^#\/jobs\/\d+$/.test(u.hash));
	const dstate = await watchJob(page, ["done", "failed"], 30);
	check(dstate === "done", "the delete job is done");
	await go(page, "#/libraries");
	await page.locator("#lib-filter").waitFor();
	check(await page.locator(`tr[data-lib="${libId}"]`).count() === 0 &&
	    await page.locator('tr[data-lib="/corpora/requests"]').count() === 1, "the library is gone from the list");
}

// refusedAddress(page): with loopback no longer listed in fetch.allowed_networks, a job of a
// repository on 127.0.0.1 fails on the refused address; its message links to the setting,
// which opens the Advanced tab with that field focused.
async function refusedAddress(page) {
	sql("UPDATE settings SET value = '' WHERE name = 'fetch.allowed_networks'");
	await page.goto("about:blank");
	await page.goto("/#/libraries/corpora/requests?tab=overview");
	await page.getByRole("button", { name: "Re-index" }).click();
	await page.getByRole("link", { name: "Follow it" }).click();
	check(await watchJob(page, ["done", "failed"], 60) === "failed", "a job of a repository on a refused address fails");
	const link = page.locator("#job-message a.setting-link");
	check(await link.count() === 1 && (await link.textContent()) === "fetch.allowed_networks",
	    "its message links to the setting that allows the address", await page.locator("#job-message").textContent());
	await shot(page, "uilib-job-refused");
	await link.click();
	await page.locator('[data-setting="fetch.allowed_networks"].wanted').waitFor();
	check(await page.locator('nav.tabs a[aria-current="page"]').textContent() === "Advanced" &&
	    await page.evaluate(() => document.activeElement?.name === "fetch.allowed_networks"),
	    "the link opens Settings › Advanced with that setting's field focused");
	const row = page.locator('[data-setting="fetch.allowed_networks"]');
	check(await row.locator("label").textContent() === "Networks the server may reach" &&
	    await row.locator("code.setting-name").textContent() === "fetch.allowed_networks" &&
	    /public addresses/.test(await row.locator(".help").textContent()),
	    "Advanced shows the setting's label from the server, its name beside it and its help");
	const names = await page.locator(".settings-form [data-setting]").evaluateAll((rows) =>
	    rows.filter((r) => !r.querySelector("code.setting-name")).map((r) => r.dataset.setting));
	check(names.length === 0, "every setting of Advanced has a label", names.join(", "));
	await shot(page, "uilib-settings-wanted");
}

await t.run(async () => {
	const page = await t.start();
	page.setDefaultTimeout(20000);
	await signIn(page, "admin", password);
	await page.waitForURL((u) => !u.hash.startsWith("#/signin"));
	await go(page, "#/libraries");
	check(await page.getByText("No libraries yet — add one").waitFor().then(() => true, () => false),
	    "an empty list says how to start");
	// A library of the GitOps manifest (as ctxd-admin gitops would leave it).
	sql("INSERT INTO libraries (id, lib_no, source_type, url, host, title, state, " +
	    "gitops, created_at, updated_at) VALUES ('/gitops/managed', 9999, 'git', " +
	    "'https://example.com/gitops/managed', 'example.com', 'managed', 'initial', 1, " +
	    "'2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')");
	await validation(page);
	await addAndWatch(page);
	await library(page, "/corpora/requests");
	await cancelAndDelete(page);
	await refusedAddress(page);
});
