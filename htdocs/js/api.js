// api.js: the one fetch wrapper of the UI. JSON in and out, the session cookie (same
// origin), the X-CSRF-Token header on every state-changing call, and errors as
// ApiError whose message is the server's {error} text (or a sentence saying what failed).

let csrfToken = null;

// ApiError: status is the HTTP status (0: the server could not be reached).
export class ApiError extends Error {
	constructor(status, message, body) {
		super(message);
		this.name = "ApiError";
		this.status = status;
		this.body = body;
	}
}

// setCsrf(token): remembers the session's CSRF token (from sign-in or GET /api/session).
export function setCsrf(token) {
	csrfToken = token || null;
}

// request(method, path, opts): the raw Response. opts.body (an object: sent as JSON),
// opts.headers (extra headers), opts.raw (a body sent as is). Throws ApiError for a
// network failure or a non-2xx status.
export async function request(method, path, opts) {
	const o = opts || {};
	const headers = Object.assign({ Accept: "application/json" }, o.headers || {});
	let body;
	if (o.body !== undefined) {
		headers["Content-Type"] = "application/json";
		body = JSON.stringify(o.body);
	} else if (o.raw !== undefined) {
		body = o.raw;
	}
	if (method !== "GET" && method !== "HEAD" && csrfToken)
		headers["X-CSRF-Token"] = csrfToken;
	let res;
	try {
		res = await fetch(path, { method, headers, body, credentials: "same-origin",
		    cache: "no-store" });
	} catch (e) {
		throw new ApiError(0, "The server could not be reached. Check that ctxd is running and try again.");
	}
	if (!res.ok) {
		let msg = null, parsed = null;
		try {
			parsed = await res.json();
			if (parsed && typeof parsed.error === "string")
				msg = parsed.error;
		} catch (e) {
			/* not JSON: say what we know */
		}
		throw new ApiError(res.status, msg || `The server answered ${res.status} ${res.statusText}.`, parsed);
	}
	return res;
}

// call(method, path, body): the parsed JSON answer (null for an empty one).
export async function call(method, path, body) {
	const res = await request(method, path, body === undefined ? {} : { body });
	const text = await res.text();
	return text ? JSON.parse(text) : null;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const patch = (path, body) => call("PATCH", path, body);
export const del = (path) => call("DELETE", path);

// enc(id): a library id such as /owner/repo as a path suffix, each segment encoded.
export function enc(id) {
	return String(id).split("/").filter((s) => s !== "").map(encodeURIComponent).join("/");
}
