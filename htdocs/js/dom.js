// dom.js: the one way the UI builds DOM. el() sets text with text nodes and attributes
// with setAttribute / properties; it never sets innerHTML, so a value from the server is
// always shown as text, never parsed as HTML.

// el(tag, attrs, ...children): a new element.
//   attrs: null, or an object: "class", "for", "id", any attribute (string; true: present;
//   false/null/undefined: absent), "on": {event: handler}, "value"/"checked"/"disabled"
//   (set as properties), "dataset": {key: value}.
//   children: strings and numbers (text nodes), Nodes, arrays of them (flattened),
//   null/undefined/false (skipped).
export function el(tag, attrs, ...children) {
	const node = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === null || v === undefined || v === false)
			continue;
		if (k === "on") {
			for (const [ev, fn] of Object.entries(v))
				node.addEventListener(ev, fn);
		} else if (k === "dataset") {
			Object.assign(node.dataset, v);
		} else if (k === "value" || k === "checked" || k === "disabled" ||
		    k === "selected") {
			node[k] = v;
		} else {
			node.setAttribute(k, v === true ? "" : String(v));
		}
	}
	append(node, children);
	return node;
}

// append(node, children): appends children as el() takes them; returns node.
export function append(node, children) {
	for (const c of children.flat(Infinity)) {
		if (c === null || c === undefined || c === false)
			continue;
		node.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return node;
}

// clear(node, ...children): replaces the node's children; returns node.
export function clear(node, ...children) {
	node.replaceChildren();
	return append(node, children);
}

let uid = 0;
// newId(prefix): an id unique in the page, for label/control pairs.
export function newId(prefix) {
	uid += 1;
	return `${prefix || "f"}-${uid}`;
}

// when(iso): an ISO 8601 time (or epoch seconds) shown in the browser's time zone, or
// "never" for null.
export function when(t) {
	if (t === null || t === undefined || t === "")
		return "never";
	const day = typeof t === "string" && /^(\d{4})-(\d{2})-(\d{2})$/.exec(t);
	if (day)	/* a date without a time: that day, wherever the browser is */
		return new Date(+day[1], day[2] - 1, +day[3]).toLocaleDateString(undefined, { dateStyle: "medium" });
	const d = typeof t === "number" ? new Date(t * 1000) : new Date(t);
	if (Number.isNaN(d.getTime()))
		return String(t);
	return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// timeEl(iso): a <time> element showing when(iso), with the exact time as its datetime.
export function timeEl(t) {
	if (t === null || t === undefined || t === "")
		return el("span", { class: "muted" }, "never");
	const d = typeof t === "number" ? new Date(t * 1000) : new Date(t);
	return el("time", { datetime: Number.isNaN(d.getTime()) ? null : d.toISOString() },
	    when(t));
}

// field(label, control, help): a labelled form row: the label names the control (its id
// is made when missing), help is one line under it, and the row has a status line
// (row.status) where a save's outcome is shown.
export function field(label, control, help) {
	if (!control.id)
		control.id = newId("f");
	const status = el("p", { class: "field-status", role: "status",
	    "aria-live": "polite" });
	const helpEl = help ? el("p", { class: "help", id: control.id + "-help" }, help) : null;
	if (helpEl)
		control.setAttribute("aria-describedby", helpEl.id);
	const row = el("div", { class: "field" },
	    el("label", { for: control.id }, label), control, helpEl, status);
	row.status = status;
	return row;
}

// checkField(input, label, help): a checkbox row with its label, one line of help and a
// status line (row.status), the checkbox's counterpart of field().
export function checkField(input, label, help) {
	if (!input.id)
		input.id = newId("f");
	const helpEl = el("p", { class: "help", id: input.id + "-help" }, help);
	input.setAttribute("aria-describedby", helpEl.id);
	const status = el("p", { class: "field-status", role: "status", "aria-live": "polite" });
	const row = el("div", { class: "field check" }, input, el("label", { for: input.id }, label), helpEl,
	    status);
	row.status = status;
	return row;
}

// showStatus(statusEl, ok, text): shows the outcome of an action in words.
export function showStatus(statusEl, ok, text) {
	statusEl.classList.toggle("ok", ok);
	statusEl.classList.toggle("error", !ok);
	statusEl.textContent = text;
}

// button(text, onClick, attrs): a type="button" button.
export function button(text, onClick, attrs) {
	return el("button", Object.assign({ type: "button", on: { click: onClick } },
	    attrs || {}), text);
}
