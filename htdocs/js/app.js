// app.js: the UI's shell. The layout (header, navigation, main), the session, and a hash
// router (#/path) over the table of views of router.js. A view is an ES module
// htdocs/js/views/NAME.js exporting
//   title: a string, or a function (params) => string: the page title;
//   render(root, params, ctx): fills root (may be async); params are the route's
//   captures, ctx = { session, navigate(hash), refreshSession() }.
import { el, clear } from "./dom.js";
import * as api from "./api.js";
import { routes, match } from "./router.js";

let session = null;

// query(): the hash's query parameters (#/path?x=y).
export function query() {
	const q = location.hash.split("?")[1] || "";
	return new URLSearchParams(q);
}

export function navigate(hash) {
	if (location.hash === hash)
		show();
	else
		location.hash = hash;
}

// refreshSession(): reloads who is signed in (null when nobody); updates the header.
export async function refreshSession() {
	try {
		session = await api.get("/api/session");
		// nobody signed in is an answer (200), not a refusal
		if (!session.signedIn)
			session = null;
		api.setCsrf(session ? session.csrfToken : null);
	} catch (e) {
		if (e.status !== 401 && e.status !== 403)
			throw e;
		session = null;
		api.setCsrf(null);
	}
	renderHeader();
	return session;
}

function renderHeader() {
	const nav = document.getElementById("nav");
	const who = document.getElementById("who");
	if (!session || session.mustChangePassword) {
		clear(nav);
		clear(who, session ? signOutButton() : null);
		return;
	}
	const links = routes.filter((r) => r.nav && (r.who !== "admin" || session.admin))
	    .map((r) => el("li", null, el("a", { href: "#" + r.path, dataset: { path: r.path } }, r.nav)));
	clear(nav, el("ul", null, links));
	clear(who, el("span", { class: "user" }, userName(session)),
	    session.admin ? el("span", { class: "badge" }, "admin") : null, signOutButton());
	markCurrent();
}

function signOutButton() {
	return el("button", { type: "button", class: "link", on: { click: signOut } }, "Sign out");
}

async function signOut() {
	try {
		await api.del("/api/session");
	} catch (e) {
		/* the session may be gone already */
	}
	session = null;
	api.setCsrf(null);
	renderHeader();
	navigate("#/signin");
}

function markCurrent() {
	const [r] = match(location.hash);
	for (const a of document.querySelectorAll("#nav a")) {
		const p = a.dataset.path;
		const cur = r && (r.path === p || (p !== "/" && r.path.startsWith(p)));
		if (cur)
			a.setAttribute("aria-current", "page");
		else
			a.removeAttribute("aria-current");
	}
}

let generation = 0;

// show(): renders the view of the current hash, after checking the session.
async function show() {
	const gen = ++generation;
	const main = document.getElementById("main");
	let [route, params] = match(location.hash);
	if (!route) {
		document.title = "Not found · ctxd";
		clear(main, el("h1", null, "Page not found"),
		    el("p", null, "There is no page at this address. ", el("a", { href: "#/" }, "Go to the status page"), "."));
		return;
	}
	if (route.who !== "public") {
		if (!session)
			await refreshSession();
		if (gen !== generation)
			return;
		if (!session) {
			const next = location.hash && location.hash !== "#/signin" ? location.hash : "";
			navigate("#/signin" + (next ? "?next=" + encodeURIComponent(next) : ""));
			return;
		}
		if (session.mustChangePassword && route.view !== "password") {
			navigate("#/password");
			return;
		}
		if (route.who === "admin" && !session.admin) {
			document.title = "Not allowed · ctxd";
			clear(main, el("h1", null, "Admins only"),
			    el("p", null, "This page is for administrators. Your account (" + userName(session) +
				") is a member: you can manage your ", el("a", { href: "#/keys" }, "API keys"),
				" and ", el("a", { href: "#/connect" }, "connect a client"), "."));
			markCurrent();
			return;
		}
	}
	markCurrent();
	let mod;
	try {
		mod = await import(`./views/${route.view}.js`);
	} catch (e) {
		clear(main, el("h1", null, "This page is not available"),
		    el("p", { class: "error" }, "The page could not be loaded: " + e.message));
		return;
	}
	if (gen !== generation)
		return;
	const title = typeof mod.title === "function" ? mod.title(params) : mod.title;
	document.title = (title ? title + " · " : "") + "ctxd";
	const root = el("div", { class: "view view-" + route.view });
	clear(main, root);
	try {
		await mod.render(root, params, { session, navigate, refreshSession, query });
	} catch (e) {
		if (gen !== generation)
			return;
		if (e instanceof api.ApiError && e.status === 401) {
			session = null;
			navigate("#/signin");
			return;
		}
		append_error(root, e);
	}
	// After a navigation the focus moves to the new content (not on the first load, where
	// the first Tab reaches the skip link).
	if (gen === generation && gen > 1 && !root.contains(document.activeElement))
		main.focus({ preventScroll: true });
}

function append_error(root, e) {
	root.append(el("p", { class: "error", role: "alert" }, e.message || String(e)));
}

// userName(session): the signed-in user's name ("operator key" for a key of no user).
export function userName(s) {
	return s && s.user ? s.user.name : "operator key";
}

// currentSession(): the current session object (or null).
export function currentSession() {
	return session;
}

window.addEventListener("hashchange", show);
// The skip link's "#main" is not a route: it moves the focus to the content instead.
document.querySelector("a.skip").addEventListener("click", (ev) => {
	ev.preventDefault();
	document.getElementById("main").focus();
});
show();
