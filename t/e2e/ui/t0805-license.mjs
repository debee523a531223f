// t0805: the Status page's license: the end date, the development-build marker, and the
// license card that installs a purchased key (a bad one is refused with the reason).
//   node t0805-license.mjs BASE ADMIN_PASSWORD GOOD_KEY BAD_KEY
import { ui, signIn } from "./ui.mjs";

const [base, password, goodKey, badKey] = process.argv.slice(2);
const t = ui(base);
const { check } = t;

await t.run(async () => {
	const page = await t.start();
	await signIn(page, "admin", password);
	await page.getByText(/is healthy/).waitFor();
	const build = await page.locator("#st-build").textContent();
	check(/development/.test(build), "Status says this is a development build", build);
	const ends = await page.locator("#st-lic-expires").textContent();
	check(/\d{4}/.test(ends), "Status shows the license's end date", ends);
	await page.locator("#lic-licensee").waitFor();
	const before = await page.locator("#lic-terms").textContent();
	check(/evaluation/.test(before) && /trial/.test(before),
	    "the card shows the trial in force: licensee evaluation, plan trial", before);
	await t.shot(page, "status-license");

	await page.locator("#lic-key").fill(badKey);
	await page.locator("#lic-install").click();
	const st = page.locator("#license .field-status");
	await st.filter({ hasText: /not installed/ }).waitFor();
	check(/not issued for this build/.test(await st.textContent()),
	    "a key from another signer is refused with the reason", await st.textContent());

	await page.locator("#lic-key").fill(goodKey);
	await page.locator("#lic-install").click();
	await st.filter({ hasText: /Installed/ }).waitFor();
	const said = await st.textContent();
	check(/Installed: standard for Acme Ltd, valid until \d{4}-\d{2}-\d{2}/.test(said),
	    "the card says what was installed: plan, licensee and end date", said);
	if (process.env.LICENSE_KEY) {
		check(/still wins/.test(said), "and that LICENSE_KEY in the environment still wins", said);
	} else {
		const who = await page.locator("#lic-licensee").textContent();
		check(who === "Acme Ltd", "the card shows the new licensee", who);
	}
	const end = await page.locator("#lic-expires").getAttribute("data-date");
	check(/^\d{4}-\d{2}-\d{2}$/.test(end), "the card shows the end date", end);
	if (!process.env.LICENSE_KEY) {
		const plan = await page.locator("#st-lic-plan").textContent();
		check(plan === "standard", "the Status summary shows the key now in force", plan);
	}
	await t.shot(page, "status-license-installed");
});
