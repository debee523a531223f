// The status page (#/): health and readiness (license and expiry, database, disk, queue)
// and the support bundle download.
import { el, timeEl, field, button, showStatus, clear } from "../dom.js";
import * as api from "../api.js";

export const title = "Status";

function bytes(n) {
	if (typeof n !== "number")
		return "unknown";
	const u = ["bytes", "KB", "MB", "GB", "TB"];
	let i = 0;
	while (n >= 1024 && i < u.length - 1) {
		n /= 1024;
		i++;
	}
	return (i === 0 ? n : n.toFixed(1)) + " " + u[i];
}

function badge(ok, yes, no) {
	return el("span", { class: "badge " + (ok ? "ok" : "error") }, ok ? yes : no);
}

// health(): GET /api/health; a 503 still carries the report. An admin gets the whole
// report; anyone else only its status.
async function health() {
	try {
		return await api.get("/api/health");
	} catch (e) {
		if (e.status === 503 && e.body && e.body.status)
			return e.body;
		throw e;
	}
}

async function ready() {
	try {
		const r = await api.get("/api/ready");
		return { ok: true, text: "ready (schema " + r.schemaVersion + ")" };
	} catch (e) {
		return { ok: false, text: "Not ready: " + e.message };
	}
}

function daysLeft(iso) {
	const t = new Date(iso).getTime();
	if (Number.isNaN(t))
		return "";
	const d = Math.floor((t - Date.now()) / 86400000);
	return d < 0 ? " (expired)" : ` (${d} day${d === 1 ? "" : "s"} left)`;
}

export async function render(root, params, ctx) {
	root.append(el("h1", null, "Status"));
	const [h, r] = await Promise.all([health(), ready()]);
	const lic = h.license || {};
	const q = h.queue || {};
	const name = h.version ? "ctxd " + h.version : "ctxd";
	root.append(el("p", { class: h.status === "ok" ? "notice ok" : "notice error", role: "status" },
	    h.status === "ok" ? name + " is healthy." : name + " has a problem: " + (h.error || "see below") + "."));
	if (!h.license) {
		root.append(el("p", null, "An admin sees the details here: license, database, disk and queue."));
		return;
	}
	if (Array.isArray(h.alerts) && h.alerts.length)
		root.append(el("ul", { class: "notice error", role: "alert", id: "st-alerts" },
		    h.alerts.map((a) => el("li", null, a))));
	root.append(
	    el("div", { class: "cards" },
		el("section", { class: "panel", "aria-labelledby": "st-lic" },
		    el("h2", { id: "st-lic" }, "License ", badge(lic.status === "valid", "valid", lic.status || "unknown")),
		    el("dl", { class: "kv" },
			el("dt", null, "Plan"), el("dd", { id: "st-lic-plan" }, lic.plan || "—"),
			el("dt", null, "Expires"), el("dd", { id: "st-lic-expires" }, lic.expires ? [timeEl(lic.expires), daysLeft(lic.expires)] : "never"),
			el("dt", null, "Build"), el("dd", { id: "st-build", class: lic.development_build ? "error" : null },
			    lic.development_build ? "development: not for production" : "release"))),
		el("section", { class: "panel", "aria-labelledby": "st-db" },
		    el("h2", { id: "st-db" }, "Database ", badge(h.database && h.database.ok, "ok", "failing")),
		    el("dl", { class: "kv" },
			el("dt", null, "Schema"), el("dd", null, String(h.database ? h.database.schemaVersion : "—")),
			el("dt", null, "Probe"), el("dd", { class: r.ok ? "ok" : "error", id: "st-ready" }, r.text))),
		el("section", { class: "panel", "aria-labelledby": "st-disk" },
		    el("h2", { id: "st-disk" }, "Disk ", badge(h.disk && h.disk.ok, "ok", "low")),
		    el("dl", { class: "kv" },
			el("dt", null, "Free"), el("dd", null, bytes(h.disk && h.disk.freeBytes)),
			el("dt", null, "Total"), el("dd", null, bytes(h.disk && h.disk.totalBytes)))),
		el("section", { class: "panel", "aria-labelledby": "st-q" },
		    el("h2", { id: "st-q" }, "Queue"),
		    el("dl", { class: "kv" },
			el("dt", null, "Queued jobs"), el("dd", null, String(q.queued ?? 0)),
			el("dt", null, "Running jobs"), el("dd", null, String(q.running ?? 0)),
			el("dt", null, "Libraries"), el("dd", null, String(h.libraries ?? 0))))));
	if (ctx.session && ctx.session.admin)
		root.append(licenseCard());
	if (ctx.session && ctx.session.admin) {
		root.append(el("section", { class: "panel", "aria-labelledby": "st-sb" },
		    el("h2", { id: "st-sb" }, "Support bundle"),
		    el("p", null, "A .tar.gz of the version, license status, health, settings (secrets only as set or not), libraries and recent job logs. It holds no secret and no snippet content."),
		    el("div", { class: "actions" },
			el("a", { href: "/api/support-bundle", download: "", class: "button", id: "support-bundle" },
			    "Download the support bundle"))));
	}
}

// licenseCard(): the key in force (GET /api/license: licensee, end date, where it comes
// from) and a form that installs a purchased key (POST /api/license).
function licenseCard() {
	const terms = el("dl", { class: "kv", id: "lic-terms" });
	const show = (l) => clear(terms,
	    el("dt", null, "Licensee"), el("dd", { id: "lic-licensee" }, l.licensee || "—"),
	    el("dt", null, "Plan"), el("dd", null, l.plan || "—"),
	    el("dt", null, "Ends"), el("dd", { id: "lic-expires", "data-date": l.expires || "" }, l.expires ? [timeEl(l.expires), daysLeft(l.expires)] : "—"),
	    el("dt", null, "Key from"), el("dd", null, l.source === "environment" ? "LICENSE_KEY in the environment (wins over an installed key)" :
		l.source === "file" ? "the installed key file" : "nowhere: no key yet"));
	const key = el("textarea", { id: "lic-key", rows: "3", spellcheck: "false", autocomplete: "off" });
	const row = field("New license key", key, "Paste the key you received (it starts with ctxd1.). It is checked before it replaces the installed one; a 30-day trial is started with ctxd-admin license trial.");
	const install = button("Install the key", async () => {
		install.disabled = true;
		try {
			const l = await api.post("/api/license", { key: key.value });
			const i = l.installed || {};
			show(l);
			// the summary card above shows the key in force too
			const plan = document.getElementById("st-lic-plan");
			const ends = document.getElementById("st-lic-expires");
			if (plan && ends) {
				plan.textContent = l.plan || "—";
				clear(ends, ...(l.expires ? [timeEl(l.expires), daysLeft(l.expires)] : ["never"]));
			}
			key.value = "";
			showStatus(row.status, true, `Installed: ${i.plan} for ${i.licensee || "—"}, valid until ${i.expires}.` +
			    (l.source === "environment" ? " LICENSE_KEY in the environment still wins: remove it from /etc/default/ctxd to use this key." : ""));
		} catch (e) {
			showStatus(row.status, false, e.message);
		} finally {
			install.disabled = false;
		}
	}, { id: "lic-install" });
	api.get("/api/license").then(show, (e) => showStatus(row.status, false, e.message));
	return el("section", { class: "panel", "aria-labelledby": "st-lic-card", id: "license" },
	    el("h2", { id: "st-lic-card" }, "License key"),
	    terms, row, el("div", { class: "actions" }, install));
}
