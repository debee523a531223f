// The first-launch wizard (#/setup, reopened from Settings as #/setup?step=NAME): the AI
// provider, the embedding provider, the git tokens, who can read, in that order, over GET /api/setup,
// POST /api/setup/STEP and POST /api/setup/STEP/skip. Each step says what skipping means.
import { el, button } from "../dom.js";
import * as api from "../api.js";
import { settingsForm, providerTest } from "../forms/settings.js";
import { readersForm } from "../forms/readers.js";
import { SETUP_STATES, meaning } from "../parts/states.js";

export const title = "Setup";

const STEPS = {
	"ai-provider": {
		intro: "ctxd uses an LLM to rerank answers and to title snippets of source code. Choose a vendor, or a custom OpenAI-compatible endpoint, with its key and model.",
		skip: "Skipping means no AI provider: answers are ranked without an LLM and, unless you set an embedding provider next, retrieval is lexical only (full-text search).",
		test: ["llm", "LLM"],
	},
	"embedding": {
		intro: "Embeddings let ctxd find snippets by meaning, not only by their words. By default the LLM provider is used; choose another vendor when yours has no embeddings (Anthropic).",
		skip: "Skipping means lexical-only retrieval: questions match snippets by their words (full-text search), not by meaning.",
		test: ["embed", "embedding"],
	},
	"git-tokens": {
		intro: "Tokens let ctxd clone private repositories. Only the platforms you use need one: a GitHub token with scope repo, a GitLab token with scope read_repository.",
		skip: "Skipping means public repositories only: cloning a private repository fails until a token is set in Settings.",
		opens: [
		    "A token is used for every repository on its host: only admins may add those, unless Allow members to use integrations is turned on in Settings > Permissions.",
		    "The server reaches public addresses only: to index sites or repositories on a private network, list it in fetch.allowed_networks (Settings > Advanced), which lets every user who may add a source reach it.",
		],
	},
	"who-can-read": {
		intro: "Who may search the documentation this server indexes, through MCP clients (/mcp) and the /api/v2 search and context calls. This web UI always needs a sign-in.",
		skip: "Skipping leaves anonymous reads as they are now (on, on a new instance): anyone who reaches the server reads every library. Change it later in Settings > Permissions.",
		form: readersForm,
	},
};


export async function render(root, params, ctx) {
	const setup = await api.get("/api/setup");
	const wanted = ctx.query().get("step");
	let step = setup.steps.find((s) => s.step === wanted) ||
	    setup.steps.find((s) => s.state === "pending");
	root.append(el("h1", null, "Set up ctxd"));
	root.append(el("ol", { class: "steps", "aria-label": "Setup steps" },
	    setup.steps.map((s, i) => el("li", { "aria-current": step && s.step === step.step ? "step" : null },
		el("a", { href: "#/setup?step=" + s.step }, `${i + 1}. ${s.title}`), " — ",
		el("span", { title: meaning(SETUP_STATES, s.state) }, s.state)))));
	if (!step) {
		root.append(el("section", { class: "panel" },
		    el("h2", null, "Setup is complete"),
		    el("p", null, "Every step is done or skipped. You can change any of it in ",
			el("a", { href: "#/settings" }, "Settings"), ", or go through a step again from the list above."),
		    el("div", { class: "actions" },
			el("a", { class: "button", href: "#/libraries" }, "Add your first library"),
			el("a", { href: "#/" }, "Go to the status page"))));
		return;
	}
	const info = STEPS[step.step] || {};
	const form = info.form ? info.form(step.settings, step.state === "pending") :
	    settingsForm(step.settings, Object.keys(step.settings));
	const next = () => {
		const i = setup.steps.findIndex((s) => s.step === step.step);
		const later = setup.steps.slice(i + 1).find((s) => s.state === "pending");
		ctx.navigate(later ? "#/setup?step=" + later.step : "#/setup?step=done");
	};
	const save = el("button", { type: "submit" }, "Save and continue");
	const skipBtn = button("Skip this step", async () => {
		try {
			await api.post(`/api/setup/${step.step}/skip`);
			next();
		} catch (e) {
			form.showError(e);
		}
	}, { class: "secondary" });
	const test = info.test ? providerTest(form, info.test[0], info.test[1]) : null;
	const f = el("form", { class: "panel", on: { submit: async (ev) => {
		ev.preventDefault();
		save.disabled = true;
		try {
			await api.post(`/api/setup/${step.step}`, form.values());
			next();
		} catch (e) {
			form.showError(e);
		} finally {
			save.disabled = false;
		}
	} } },
	    el("h2", null, step.title),
	    el("p", null, info.intro),
	    (info.opens || []).map((t) => el("p", { class: "help switch-opens" }, t)),
	    form.node,
	    el("div", { class: "actions" }, save, test && test.button, skipBtn),
	    test && test.output,
	    el("p", { class: "help skip-meaning" }, info.skip));
	root.append(f);
}
