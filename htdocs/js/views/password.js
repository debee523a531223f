// Change one's own password (#/password): forced at the first sign-in, and reachable from
// Settings > Your account.
import { el } from "../dom.js";
import { firstPage } from "../parts/firstpage.js";
import { passwordForm } from "../forms/password.js";

export const title = "Change password";

export function render(root, params, ctx) {
	const forced = ctx.session && ctx.session.mustChangePassword;
	root.append(el("h1", null, forced ? "Choose a new password" : "Change your password"));
	if (forced)
		root.append(el("p", { class: "warning" }, "Your password must be changed before you can use ctxd" +
		    (ctx.session.user && ctx.session.user.name === "admin" ? ": the default admin password is known to everyone." : ".")));
	root.append(passwordForm(ctx, async () => {
		const s = await ctx.refreshSession();
		ctx.navigate(forced ? await firstPage(s) : "#/");
	}));
}
