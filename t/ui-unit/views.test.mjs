// views.test.mjs: the layout of the UI's modules: a view imports no other view (what views
// share lives in htdocs/js/parts/ and htdocs/js/forms/), every module a view imports exists,
// and the router names only views that exist.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { routes } from "../../htdocs/js/router.js";

const js = resolve(dirname(fileURLToPath(import.meta.url)), "../../htdocs/js");
const imports = (file) => [...readFileSync(file, "utf8").matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);

test("no view imports another view", () => {
	for (const f of readdirSync(join(js, "views"))) {
		for (const i of imports(join(js, "views", f)))
			assert.ok(!resolve(join(js, "views"), i).startsWith(join(js, "views") + "/"),
			    `views/${f} imports ${i}`);
	}
});

test("every import of the UI's modules names a file that exists", () => {
	for (const dir of ["", "views", "parts", "forms"])
		for (const f of readdirSync(join(js, dir)).filter((n) => n.endsWith(".js")))
			for (const i of imports(join(js, dir, f)))
				assert.ok(existsSync(resolve(join(js, dir), i)), `${dir}/${f} imports ${i}`);
});

test("the router names only views that exist", () => {
	for (const r of routes)
		assert.ok(existsSync(join(js, "views", r.view + ".js")), r.view);
});
