// t/e2e/ui/ui.mjs: what the web UI tests (t/t08xx-ui-*.sh, scripts t/e2e/ui/t08xx-*.mjs)
// share: one Debian chromium launched by playwright-core per test file, a page that fails
// the test on any console error, uncaught exception or CSP violation, checks printed as
// "CHECK 0|1 description" lines (the shell test turns them into TAP), screenshots of a
// page at 360 and 1440 px into $SHOTS, and the check that a table fits a 360 px screen.
//
// Console errors that are the browser's note of an /api/ or /mcp answer with a 4xx status
// (the UI asked, the server refused, the UI showed it in words: signed out, wrong password,
// a missing key) are not failures: a test asserts on what the page shows instead; nor is a
// 503 of the health probes /api/health and /api/ready (an unhealthy instance, shown on the
// Status page). Every other console error is.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

const REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d/;
const PROBE_DOWN = /^Failed to load resource: the server responded with a status of 503/;

export function ui(base) {
	const shots = process.env.SHOTS || "";
	const problems = [];
	let failed = 0;
	let browser, context;

	function check(ok, desc, detail) {
		console.log(`CHECK ${ok ? 0 : 1} ${desc.replace(/\n/g, " ")}`);
		if (!ok) {
			failed++;
			if (detail !== undefined)
				console.log(`# ${String(detail).replace(/\n/g, "\n# ")}`);
		}
		return ok;
	}

	function watch(page) {
		page.on("console", (m) => {
			if (m.type() !== "error")
				return;
			const url = m.location().url || "";
			const path = new URL(url, base).pathname;
			if (REFUSAL.test(m.text()) && (path.startsWith("/api/") || path === "/mcp"))
				return;
			// the health probes answer 503 when the instance is not healthy (an expired
			// license): that is their answer, which the Status page shows in words
			if (PROBE_DOWN.test(m.text()) && (path === "/api/health" || path === "/api/ready"))
				return;
			problems.push(`console error: ${m.text()} (${url})`);
		});
		page.on("pageerror", (e) => problems.push(`uncaught exception: ${e.message}`));
		page.on("requestfailed", (r) => {
			const f = r.failure();
			if (f && !/ERR_ABORTED/.test(f.errorText))
				problems.push(`request failed: ${r.url()} ${f.errorText}`);
		});
		return page;
	}

	return {
		check,
		problems,
		async start(opts) {
			browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
			    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"] });
			context = await browser.newContext(Object.assign({ viewport: { width: 1440, height: 900 },
			    baseURL: base, acceptDownloads: true }, opts || {}));
			await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: base });
			// Every CSP violation is reported, whether or not the browser logs it.
			await context.addInitScript(() => {
				document.addEventListener("securitypolicyviolation", (e) => {
					console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
				});
			});
			context.setDefaultTimeout(10000);
			return watch(await context.newPage());
		},
		// newContextPage(): a page in a fresh context (another user, no cookies).
		async newContextPage() {
			const c = await browser.newContext({ viewport: { width: 1440, height: 900 }, baseURL: base });
			c.setDefaultTimeout(10000);
			await c.addInitScript(() => {
				document.addEventListener("securitypolicyviolation", (e) => {
					console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI}`);
				});
			});
			return watch(await c.newPage());
		},
		// shot(page, name): NAME-1440.png and NAME-360.png (full page) into $SHOTS, after
		// checking that every visible control has a label.
		// shot(page, name): the page at 1440 and 360 px into $SHOTS (when set), its controls
		// labelled, and no wider than a 360 px screen (a check of its own).
		async shot(page, name) {
			const bad = await unlabelled(page);
			if (bad.length)
				problems.push(`${name}: controls without a label: ${bad.join(", ")}`);
			if (shots)
				mkdirSync(shots, { recursive: true });
			const vp = page.viewportSize();
			for (const w of [1440, 360]) {
				await page.setViewportSize({ width: w, height: w === 360 ? 740 : 900 });
				await page.waitForTimeout(50);
				if (shots)
					await page.screenshot({ path: `${shots}/${name}-${w}.png`, fullPage: true });
			}
			const wide = await page.evaluate(() => document.documentElement.scrollWidth);
			await page.setViewportSize(vp);
			check(wide <= 360, `${name} fits a 360 px screen (${wide} px wide)`);
		},
		// tableOnAPhone(page, sel, what): checks of its own that the table sel (its first
		// match, what names it) needs no sideways scrolling at 360 px: neither the page nor
		// the table's scroll box (its parent) is wider than what it shows, and what each cell
		// of each body row holds (its text and elements, measured with a Range so that a
		// value sticking out of its cell counts) lies within 0-360 px; and that at 1440 px it
		// is still a table with its column heads. The viewport is restored.
		async tableOnAPhone(page, sel, what) {
			const vp = page.viewportSize();
			await page.setViewportSize({ width: 360, height: 740 });
			await page.waitForTimeout(50);
			const m = await page.evaluate((s) => {
				const table = document.querySelector(s), doc = document.documentElement;
				const wrap = table.parentElement;
				const heads = [...table.querySelectorAll("thead th")].map((h) => h.textContent.trim() || "no head");
				const off = [];
				let cells = 0;
				table.querySelectorAll("tbody tr").forEach((tr, i) => {
					[...tr.children].forEach((c, j) => {
						const range = document.createRange();
						range.selectNodeContents(c);
						const rs = [...range.getClientRects()].filter((r) => r.width > 0);
						if (rs.length === 0)
							return;
						cells++;
						const left = Math.min(...rs.map((r) => r.left)), right = Math.max(...rs.map((r) => r.right));
						if (left < 0 || right > innerWidth)
							off.push(`row ${i + 1} ${heads[j] || "cell " + (j + 1)}: ${Math.round(left)}–${Math.round(right)} px`);
					});
				});
				return { doc: [doc.scrollWidth, doc.clientWidth], wrap: [wrap.scrollWidth, wrap.clientWidth], cells, off };
			}, sel);
			check(m.doc[0] <= m.doc[1], `at 360 px the page of ${what} does not scroll sideways (${m.doc[0]} px in ${m.doc[1]})`);
			check(m.wrap[0] <= m.wrap[1], `nor does ${what} in its box (${m.wrap[0]} px in ${m.wrap[1]})`);
			check(m.cells > 0 && m.off.length === 0, `what each of the ${m.cells} cells of ${what} holds is on screen`,
			    m.off.join("\n"));
			await page.setViewportSize({ width: 1440, height: 900 });
			await page.waitForTimeout(50);
			const table = page.locator(sel).first();
			check(await table.locator("thead").isVisible() &&
			    await table.locator("tbody tr").first().evaluate((tr) => getComputedStyle(tr).display === "table-row"),
			    `at 1440 px ${what} is a table with its column heads`);
			await page.setViewportSize(vp);
		},
		// titleIs(page, want): true once the document's title is want (a view sets it as it
		// renders, after the URL has changed), false after 5 s.
		async titleIs(page, want) {
			try {
				await page.waitForFunction((w) => document.title === w, want, { timeout: 5000 });
				return true;
			} catch {
				return false;
			}
		},
		// finish(): the no-console-error check, closes the browser, exits 0/1.
		async finish() {
			check(problems.length === 0, "no console error, uncaught exception or CSP violation",
			    problems.join("\n"));
			if (browser)
				await browser.close();
			process.exit(failed ? 1 : 0);
		},
		// run(fn): runs the test body; an exception is a failed check, then finish().
		async run(fn) {
			try {
				await fn();
			} catch (e) {
				check(false, "the test ran to its end", e.stack || e.message);
			}
			await this.finish();
		},
	};
}

// unlabelled(page): the visible form controls of the page that have no accessible name.
async function unlabelled(page) {
	return page.evaluate(() => [...document.querySelectorAll("input, select, textarea, button")]
	    .filter((c) => c.offsetParent !== null && c.type !== "hidden")
	    .filter((c) => !(c.labels && c.labels.length) && !c.getAttribute("aria-label") &&
		!c.getAttribute("aria-labelledby") && !(c.tagName === "BUTTON" && c.textContent.trim()))
	    .map((c) => `${c.tagName.toLowerCase()}[name=${c.name || "?"}]`));
}

// signIn(page, user, password): signs in through the form.
export async function signIn(page, user, password) {
	await page.goto("/#/signin");
	await page.getByLabel("User name").fill(user);
	await page.getByLabel("Password", { exact: true }).fill(password);
	await page.getByRole("button", { name: "Sign in" }).click();
}
