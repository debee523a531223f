// router.test.mjs: the UI's hash router (htdocs/js/router.js) without a browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { routes, match } from "../../htdocs/js/router.js";

const view = (hash) => { const [r, p] = match(hash); return [r ? r.view : null, p]; };

test("the empty hash and #/ are the status page", () => {
	assert.deepEqual(view(""), ["home", {}]);
	assert.deepEqual(view("#/"), ["home", {}]);
	assert.deepEqual(view("#"), ["home", {}]);
});

test("a literal path matches its view, with or without a trailing slash", () => {
	assert.deepEqual(view("#/jobs"), ["jobs", {}]);
	assert.deepEqual(view("#/jobs/"), ["jobs", {}]);
	assert.deepEqual(view("#/settings"), ["settings", {}]);
});

test("the query string is not part of the path", () => {
	assert.deepEqual(view("#/settings?tab=policies"), ["settings", {}]);
	assert.deepEqual(view("#/signin?next=%23%2Fjobs"), ["signin", {}]);
});

test(":x captures one segment, decoded", () => {
	assert.deepEqual(view("#/jobs/42"), ["job", { id: "42" }]);
	assert.deepEqual(view("#/jobs/a%20b"), ["job", { id: "a b" }]);
	assert.deepEqual(view("#/jobs/42/log"), [null, {}]);
});

test(":x* captures the rest, one or more segments, with a leading slash", () => {
	assert.deepEqual(view("#/libraries/acme/demo"), ["library", { id: "/acme/demo" }]);
	assert.deepEqual(view("#/libraries/acme/demo/v1.2"), ["library", { id: "/acme/demo/v1.2" }]);
	assert.deepEqual(view("#/libraries/a%2Fb/c"), ["library", { id: "/a/b/c" }]);
	assert.deepEqual(view("#/libraries"), ["libraries", {}]);
});

test("an unknown path matches nothing", () => {
	assert.deepEqual(view("#/nope"), [null, {}]);
	assert.deepEqual(view("#/keys/extra"), [null, {}]);
});

test("every route has a view, a known audience and a unique path", () => {
	const paths = new Set();
	for (const r of routes) {
		assert.match(r.view, /^[a-z]+$/);
		assert.ok(["public", "user", "admin"].includes(r.who), r.path);
		assert.ok(!paths.has(r.path), "duplicate " + r.path);
		paths.add(r.path);
		assert.equal(match("#" + r.path.replace(":id*", "a/b").replace(":id", "7"))[0], r);
	}
});
