// t0890: Settings > Upstream: the upstream's URL saved and checked with "Save and test"
// (it answers), then one where nothing listens (the failure in words).
//   node t0890-upstream.mjs BASE ADMIN_PASSWORD UPSTREAM_API DEAD_API
import { ui, signIn } from "./ui.mjs";

const [base, password, upstream, dead] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();

	await page.goto("/#/settings?tab=upstream");
	const url = page.getByLabel("Upstream API base URL");
	await url.waitFor();
	check(await url.inputValue() === "", "no upstream by default");
	await url.fill(upstream);
	await page.getByRole("button", { name: "Save and test" }).click();
	await page.getByText("The upstream answered: it works.").waitFor();
	check(await page.getByText(/answers: a library search gave \d+ result/).isVisible(),
	    "Save and test: the upstream's answer in words");
	await t.shot(page, "settings-upstream");

	await url.fill(dead);
	await page.getByRole("button", { name: "Save and test" }).click();
	await page.getByText("The upstream call failed.").waitFor();
	check(await page.locator(".test-lines").innerText().then((s) => /127\.0\.0\.1/.test(s)),
	    "Save and test: a failure names the upstream's host");
});
