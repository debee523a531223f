// forms/password.js: the form that changes one's own password (the forced change at the
// first sign-in, and Settings > Your account).
import { el, field, showStatus } from "../dom.js";
import * as api from "../api.js";
import { checkNewPassword } from "./checks.js";

// passwordForm(ctx, done): the form of POST /api/password; calls done() after a change.
export function passwordForm(ctx, done) {
	const cur = el("input", { type: "password", autocomplete: "current-password", required: true });
	const pw1 = el("input", { type: "password", autocomplete: "new-password", required: true,
	    minlength: 10, maxlength: 1024 });
	const pw2 = el("input", { type: "password", autocomplete: "new-password", required: true });
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const submit = el("button", { type: "submit" }, "Change password");
	const form = el("form", { class: "panel narrow", on: { submit: onSubmit } },
	    el("input", { type: "text", autocomplete: "username", hidden: true, readonly: true,
		"aria-hidden": "true", tabindex: "-1",
		value: ctx.session && ctx.session.user ? ctx.session.user.name : "" }),
	    field("Current password", cur),
	    field("New password", pw1, "10 to 1024 characters, not your user name."),
	    field("New password again", pw2), status,
	    el("div", { class: "actions" }, submit));
	async function onSubmit(ev) {
		ev.preventDefault();
		const bad = checkNewPassword(pw1.value, pw2.value, ctx.session && ctx.session.user ?
		    ctx.session.user.name : "");
		if (bad) {
			showStatus(status, false, bad);
			(pw1.value !== pw2.value ? pw2 : pw1).focus();
			return;
		}
		submit.disabled = true;
		try {
			await api.post("/api/password", { currentPassword: cur.value, newPassword: pw1.value });
			showStatus(status, true, "Password changed. Your other sessions were signed out.");
			form.reset();
			await done();
		} catch (e) {
			showStatus(status, false, e.message);
		} finally {
			submit.disabled = false;
		}
	}
	return form;
}
