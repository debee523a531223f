// forms/readers.js: "Who can read", the wizard's choice of perm.require_mcp_auth (the one
// switch of /mcp and the /api/v2 search and context calls): two choices, each with its
// consequence in one sentence, and what it means for MCP clients. Same interface as
// settingsForm: { node, values(), showError(err) }.
import { el, newId, showStatus } from "../dom.js";

// The choices: the value of perm.require_mcp_auth, the label, the consequence.
export const READERS = [
	[true, "Only people with an API key",
	    "Every MCP client and /api/v2 call must send a personal API key (each user creates theirs under API keys); a request without one is refused."],
	[false, "Anyone who reaches the server (anonymous reads)",
	    "No key is asked: anyone who can reach this server can read every library, private repositories read with the instance's tokens included."],
];

// readersForm(settings, pending): settings as the step's "settings"; pending: the step was
// never saved, so the closed choice is offered first, else the current value is shown.
export function readersForm(settings, pending) {
	const meta = settings["perm.require_mcp_auth"] || {};
	const current = pending ? true : !!meta.value;
	const group = newId("readers");
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const radios = READERS.map(([value, label, what]) => {
		const id = newId("r");
		const input = el("input", { type: "radio", name: group, id, value: String(value), checked: value === current,
		    "aria-describedby": id + "-help" });
		return { value, input, node: el("div", { class: "field check choice", dataset: { readers: String(value) } }, input,
		    el("label", { for: id }, label), el("p", { class: "help", id: id + "-help" }, what)) };
	});
	const node = el("div", { class: "settings-form readers", dataset: { setting: "perm.require_mcp_auth" } },
	    el("fieldset", { class: "choices" }, el("legend", null, "Who can read the documentation"),
		radios.map((r) => r.node)),
	    el("p", { class: "muted now" }, "Now: ", meta.value ? "an API key is needed to read." :
		"anonymous reads are on: anyone who reaches the server reads."),
	    el("h3", null, "MCP authentication"),
	    el("p", { class: "help" }, "This choice is the switch ", el("strong", null, meta.label || "Require MCP authentication"),
		" (", el("code", null, "perm.require_mcp_auth"), ") of ", el("a", { href: "#/settings?setting=perm.require_mcp_auth" }, "Settings › Permissions"),
		". With it on, MCP clients authenticate with a personal API key in the Authorization header; ",
		el("a", { href: "#/connect" }, "Connect a client"), " writes that configuration for each client."),
	    status);
	return {
		node,
		values() {
			const r = radios.find((x) => x.input.checked);
			return r ? { "perm.require_mcp_auth": r.value } : {};
		},
		showError(err) {
			showStatus(status, false, err.message || String(err));
		},
	};
}
