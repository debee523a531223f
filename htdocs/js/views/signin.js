// The sign-in view (#/signin?next=HASH).
import { el, field, showStatus } from "../dom.js";
import * as api from "../api.js";
import { firstPage } from "../parts/firstpage.js";

export const title = "Sign in";

export function render(root, params, ctx) {
	const user = el("input", { type: "text", name: "username", autocomplete: "username",
	    required: true, autocapitalize: "none", spellcheck: "false" });
	const pass = el("input", { type: "password", name: "password",
	    autocomplete: "current-password", required: true });
	const status = el("p", { class: "field-status", role: "alert" });
	const submit = el("button", { type: "submit" }, "Sign in");
	const form = el("form", { class: "panel narrow", on: { submit: onSubmit } },
	    field("User name", user), field("Password", pass), status,
	    el("div", { class: "actions" }, submit),
	    el("p", { class: "help" }, "A new instance has one user, admin, with the password admin: you will be asked to change it at once."));
	root.append(el("h1", null, "Sign in to ctxd"), form);
	user.focus();

	async function onSubmit(ev) {
		ev.preventDefault();
		submit.disabled = true;
		status.textContent = "";
		try {
			const s = await api.post("/api/session", { username: user.value, password: pass.value });
			api.setCsrf(s.csrfToken);
			await ctx.refreshSession();
			const next = ctx.query().get("next");
			if (s.mustChangePassword)
				ctx.navigate("#/password");
			else if (next && next.startsWith("#/") && !next.startsWith("#/signin"))
				ctx.navigate(next);
			else
				ctx.navigate(await firstPage(s));
		} catch (e) {
			showStatus(status, false, e.status === 401 ?
			    "Wrong user name or password." : e.message);
			pass.select();
		} finally {
			submit.disabled = false;
		}
	}
}
