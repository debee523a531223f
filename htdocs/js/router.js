// router.js: the UI's table of views and the matcher of location hashes (#/path) against it.
// No DOM: Node's test runner tests it (t/ui-unit/).

// The views. path: segments, ":x" captures one segment, ":x*" the rest (one or more);
// who: "public" (no sign-in), "user" (any signed-in user), "admin"; nav: its link text.
export const routes = [
	{ path: "/", view: "home", who: "user", nav: "Status" },
	{ path: "/signin", view: "signin", who: "public" },
	{ path: "/password", view: "password", who: "user" },
	{ path: "/setup", view: "setup", who: "admin" },
	{ path: "/libraries", view: "libraries", who: "admin", nav: "Libraries" },
	{ path: "/libraries/:id*", view: "library", who: "admin" },
	{ path: "/jobs", view: "jobs", who: "admin", nav: "Jobs" },
	{ path: "/jobs/:id", view: "job", who: "admin" },
	{ path: "/settings", view: "settings", who: "admin", nav: "Settings" },
	{ path: "/keys", view: "keys", who: "user", nav: "API keys" },
	{ path: "/connect", view: "connect", who: "user", nav: "Connect a client" },
];

// match(hash): [route, params] for a location hash, or [null, {}].
export function match(hash) {
	const path = (hash.replace(/^#/, "").split("?")[0]) || "/";
	const segs = path.split("/").filter((s) => s !== "");
	for (const r of routes) {
		const pat = r.path.split("/").filter((s) => s !== "");
		const params = {};
		let ok = true, i = 0;
		for (; i < pat.length; i++) {
			const p = pat[i];
			if (p.endsWith("*")) {
				if (i >= segs.length) { ok = false; break; }
				params[p.slice(1, -1)] = "/" + segs.slice(i).map(decodeURIComponent).join("/");
				i = segs.length;
				break;
			}
			if (i >= segs.length) { ok = false; break; }
			if (p.startsWith(":"))
				params[p.slice(1)] = decodeURIComponent(segs[i]);
			else if (p !== segs[i]) { ok = false; break; }
		}
		if (ok && i === segs.length && (pat.length > 0 || segs.length === 0))
			return [r, params];
	}
	return [null, {}];
}
