// t0800: the whole first launch on a fresh instance, in chromium: sign in as admin/admin,
// the forced password change, the wizard (AI provider with a failing and a passing Test,
// embeddings, git tokens skipped, who can read: an API key), the status page and the support bundle, Settings and
// the wizard reopened from there.
//   node t0800-first-launch.mjs BASE VENDOR_BASE NEW_PASSWORD OUT_DIR
import { ui, signIn } from "./ui.mjs";
import { writeFileSync } from "node:fs";

const [base, vendor, newPassword, out] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

await t.run(async () => {
	const page = await t.start();
	// The landing page asks nothing that the browser logs as an error (a 4xx or 5xx).
	const refused = [];
	const onAnswer = (r) => { if (r.status() >= 400) refused.push(`${r.status()} ${r.url()}`); };
	page.on("response", onAnswer);
	await page.goto("/");
	await page.waitForURL(/#\/signin/);
	await page.waitForLoadState("networkidle");
	page.off("response", onAnswer);
	check(refused.length === 0, "the landing page makes no request that fails", refused.join(", "));
	check(await t.titleIs(page, "Sign in · ctxd"), "/ sends a signed-out visitor to the sign-in page", await page.title());
	const csp = (await page.request.get("/")).headers()["content-security-policy"] || "";
	check(/default-src 'self'/.test(csp) && /frame-ancestors 'none'/.test(csp) && !/unsafe-inline/.test(csp),
	    "/ is served with a strict Content-Security-Policy", csp);
	await t.shot(page, "signin");

	await signIn(page, "admin", "wrong password");
	await page.getByText("Wrong user name or password.").waitFor();
	check(true, "a wrong password is refused in words");

	await signIn(page, "admin", "admin");
	await page.waitForURL(/#\/password/);
	await page.getByText("the default admin password is known to everyone").waitFor();
	check(await t.titleIs(page, "Change password · ctxd"), "admin/admin must change the password first");
	check(await page.locator("#nav a").count() === 0, "no navigation before the password is changed");
	await t.shot(page, "password");
	await page.getByLabel("Current password").fill("not the password");
	await page.getByLabel("New password", { exact: true }).fill(newPassword);
	await page.getByLabel("New password again").fill(newPassword + "x");
	await page.getByRole("button", { name: "Change password" }).click();
	const err = page.locator(".field-status.error");
	await err.waitFor();
	check(/differ/.test(await err.textContent()), "two different new passwords are caught before sending", await err.textContent());
	await page.getByLabel("New password again").fill(newPassword);
	await page.getByRole("button", { name: "Change password" }).click();
	await page.locator(".field-status.error", { hasText: /current/i }).waitFor();
	check(true, "a wrong current password shows the server's error");
	await page.getByLabel("New password", { exact: true }).fill(newPassword);
	await page.getByLabel("New password again").fill(newPassword);
	await page.getByLabel("Current password").fill("admin");
	await page.getByRole("button", { name: "Change password" }).click();

	// The wizard, step 1: the AI provider.
	await page.waitForURL(/#\/setup/);
	await page.getByRole("heading", { name: "AI provider" }).waitFor();
	check(await t.titleIs(page, "Setup · ctxd"), "after the change the wizard opens at the AI provider step");
	check(await page.getByLabel("Region").isHidden() && await page.getByLabel("Base URL").isHidden(),
	    "with no provider chosen, region and base URL are hidden");
	check(/lexical only/.test(await page.locator(".skip-meaning").textContent()), "step 1 says what skipping means");
	await t.shot(page, "setup-ai");
	await page.getByLabel("LLM provider").selectOption("custom");
	check(await page.getByLabel("Base URL").isVisible(), "custom shows the base URL");
	await page.getByLabel("LLM API key").fill("sk-401-ui");
	await page.getByLabel("LLM model").fill("local-llm");
	await page.getByLabel("Base URL").fill(vendor + "/v1");
	await page.getByRole("button", { name: "Save and test" }).click();
	await page.getByText("The LLM provider call failed.").waitFor();
	const lines = await page.locator(".test-lines").textContent();
	check(/FAILED \(auth\)/.test(lines) && !/sk-401-ui/.test(lines), "Test shows a refused key as an auth failure, without the key", lines);
	await page.getByLabel("LLM API key").fill("sk-good-ui");
	await page.getByRole("button", { name: "Save and test" }).click();
	await page.getByText("The LLM provider answered: it works.").waitFor();
	check(/llm: ok in \d+ ms/.test(await page.locator(".test-lines").textContent()), "Test makes one real call that succeeds");
	await page.getByRole("button", { name: "Save and continue" }).click();

	// Step 2: embeddings, the same provider.
	await page.getByRole("heading", { name: "Embedding provider" }).waitFor();
	check(await page.getByLabel("Embedding API key").isHidden(), "embeddings: 'same' inherits the key (no key field)");
	check(await page.getByLabel("Embedding region").isHidden(), "embeddings: no region unless Bedrock embeds");
	await page.getByLabel("Embedding provider").selectOption("bedrock");
	check(await page.getByLabel("Embedding region").isVisible() && await page.getByLabel("Embedding API key").isVisible(),
	    "Bedrock embeddings show their own region and key");
	await t.shot(page, "setup-embedding-bedrock");
	await page.getByLabel("Embedding provider").selectOption("same");
	check(await page.getByLabel("Embedding region").isHidden(), "back to 'same': the region hides again");
	await page.getByLabel("Embedding model").fill("local-embed");
	await page.getByRole("button", { name: "Save and test" }).click();
	await page.getByText("The embedding provider answered: it works.").waitFor();
	check(/embed: ok in \d+ ms: 2 vectors/.test(await page.locator(".test-lines").textContent()), "embedding Test succeeds");
	await t.shot(page, "setup-embedding");
	await page.getByRole("button", { name: "Save and continue" }).click();

	// Step 3: git tokens, skipped.
	await page.getByRole("heading", { name: "Git tokens" }).waitFor();
	check(/public repositories only/.test(await page.locator(".skip-meaning").textContent()), "step 3 says skipping means public repositories only");
	await t.shot(page, "setup-git");
	await page.getByRole("button", { name: "Skip this step" }).click();

	// Step 4: who can read, decided: the closed choice is offered first.
	await page.getByRole("heading", { name: "Who can read" }).waitFor();
	const closed = page.getByLabel("Only people with an API key");
	const open = page.getByLabel("Anyone who reaches the server (anonymous reads)");
	check(await closed.isChecked() && !(await open.isChecked()), "step 4 offers 'only people with an API key' first");
	check(/anyone who can reach this server can read every library/.test(await page.locator('[data-readers="false"] .help').textContent()),
	    "anonymous reads: the consequence in one sentence");
	check(/must send a personal API key/.test(await page.locator('[data-readers="true"] .help').textContent()),
	    "an API key: the consequence in one sentence");
	check(/anonymous reads are on/.test(await page.locator(".readers .now").textContent()), "the step says reads are anonymous now");
	check(await page.getByRole("heading", { name: "MCP authentication" }).isVisible(), "the step says what it means for MCP clients");
	check(/leaves anonymous reads/.test(await page.locator(".skip-meaning").textContent()), "step 4 says what skipping means");
	await t.shot(page, "setup-who-can-read");
	await page.getByRole("button", { name: "Save and continue" }).click();
	await page.getByRole("heading", { name: "Setup is complete" }).waitFor();
	const steps = await page.locator(".steps").textContent();
	check(/3\. Git tokens — skipped/.test(steps) && /4\. Who can read — done/.test(steps),
	    "the wizard ends with git tokens skipped and who can read decided", steps);
	const anon = await page.evaluate(async () => (await fetch("/api/v2/libs/search?libraryName=x&query=x", { credentials: "omit" })).status);
	check(anon === 401, "after the step, a read without a key is refused", String(anon));
	await t.shot(page, "setup-done");

	// The status page and the support bundle.
	await page.getByRole("link", { name: "Status", exact: true }).click();
	await page.getByText(/is healthy/).waitFor();
	check(await t.titleIs(page, "Status · ctxd"), "the status page has its title");
	check(/valid/.test(await page.locator("#st-lic").textContent()), "the status page shows the license valid");
	check(/12 failed sign-ins for mallory from 6 addresses in the last 15 min/.test(await page.locator("#st-alerts").textContent()),
	    "the status page shows the alert of failed sign-ins");
	check(/days? left/.test(await page.locator(".view-home").textContent()), "the license expiry is shown with the days left");
	check(/^ready \(schema \d+\)$/.test(await page.locator("#st-ready").textContent()), "readiness is shown");
	await t.shot(page, "status");
	await page.emulateMedia({ colorScheme: "dark" });
	check(await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor) === "rgb(21, 24, 27)",
	    "the dark scheme follows the system");
	await t.shot(page, "status-dark");
	await page.emulateMedia({ colorScheme: "light" });
	const [dl] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Download the support bundle" }).click()]);
	check(/^ctxd-support-\d{8}T\d{6}Z\.tar\.gz$/.test(dl.suggestedFilename()), "the support bundle downloads under its name", dl.suggestedFilename());
	await dl.saveAs(out + "/bundle.tar.gz");

	// Settings: each tab, a secret shown as set, an error next to its field.
	for (const [tab, name] of [["ai", "AI provider"], ["embeddings", "Embeddings"], ["git", "Git tokens"],
	    ["integrations", "Integrations"], ["permissions", "Permissions"], ["users", "Users"], ["advanced", "Advanced"], ["account", "Your account"]]) {
		await page.goto("/#/settings?tab=" + tab);
		await page.locator(".tabs a[aria-current=page]", { hasText: name }).waitFor();
		await page.locator(".view-settings .panel, .view-settings h2").first().waitFor();
		await t.shot(page, "settings-" + tab);
	}
	await page.goto("/#/settings?tab=ai");
	const keyRow = page.locator('[data-setting="ai.llm.api_key"]');
	await keyRow.waitFor();
	check(/\bset\b/.test(await keyRow.locator(".badge").textContent()) &&
	    await page.getByLabel("LLM API key", { exact: true }).inputValue() === "", "a secret is write-only: shown as set, its field empty");
	await page.getByLabel("Base URL").fill("ftp://example.com/v1");
	await page.getByRole("button", { name: "Save", exact: true }).click();
	const fieldErr = page.locator('[data-setting="ai.llm.base_url"] .field-status.error');
	await fieldErr.waitFor();
	check(/ai\.llm\.base_url/.test(await fieldErr.textContent()), "a refused value shows the server's error next to its field",
	    await fieldErr.textContent());
	await page.getByLabel("Base URL").fill(vendor + "/v1");
	await page.getByRole("button", { name: "Save", exact: true }).click();
	await page.getByText("Saved.").waitFor();
	check(true, "a good value saves and says so");

	// The wizard reopened from Settings.
	await page.goto("/#/settings?tab=account");
	await page.getByRole("link", { name: "Open the setup wizard again" }).click();
	await page.getByRole("heading", { name: "AI provider" }).waitFor();
	check(await page.getByLabel("LLM provider").inputValue() === "custom", "the reopened wizard shows the saved provider");

	// Keyboard: the skip link and visible focus.
	await page.goto("/#/");
	await page.reload();
	await page.getByText(/is healthy/).waitFor();
	await page.keyboard.press("Tab");
	check(await page.evaluate(() => document.activeElement.className) === "skip", "the first Tab reaches the skip link");
	await page.keyboard.press("Enter");
	check(await page.evaluate(() => document.activeElement.id) === "main", "the skip link moves the focus to the content");

	// An unknown page, then signing out.
	await page.goto("/#/no/such/page");
	await page.getByRole("heading", { name: "Page not found" }).waitFor();
	check(await t.titleIs(page, "Not found · ctxd"), "an unknown address says so, with its title");
	await page.getByRole("button", { name: "Sign out" }).click();
	await page.waitForURL(/#\/signin/);
	await page.goto("/#/settings");
	await page.waitForURL(/#\/signin\?next=/);
	check(await page.locator("#nav a").count() === 0, "after signing out, Settings leads to the sign-in page");
	await page.getByLabel("User name").fill("admin");
	await page.getByLabel("Password", { exact: true }).fill(newPassword);
	await page.getByRole("button", { name: "Sign in" }).click();
	await page.waitForURL(/#\/settings$/);
	check(true, "signing in again returns to the page asked for");
	writeFileSync(out + "/t0800.done", "ok\n");
});
