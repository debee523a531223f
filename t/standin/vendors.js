#!/usr/bin/env node
// t/standin/vendors.js: a local stand-in for the AI vendors' HTTP APIs, for the tests.
//
//   node t/standin/vendors.js [PORT]     (0 or none: any free port; the port is printed)
//
// One server on 127.0.0.1 answers the paths of
//   openai / custom   POST /v1/chat/completions, POST /v1/embeddings    (Authorization: Bearer)
//   anthropic         POST /v1/messages            (x-api-key, anthropic-version: 2023-06-01)
//   gemini            POST /v1beta/models/M:generateContent, :batchEmbedContents
//                                                  (x-goog-api-key)
//   bedrock-runtime   POST /model/ID/converse, POST /model/ID/invoke (titan and cohere bodies)
//                     (Authorization: AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/bedrock/
//                      aws4_request, SignedHeaders=..., Signature=64 hex + X-Amz-Date, or
//                      Authorization: Bearer TOKEN)
// It checks each request's shape strictly (known fields only, right types) and its auth
// headers, and answers with the vendor's real response shape: deterministic completions ("ok"
// when the prompt asks for "ok"; a ranking prompt's numbers reversed; a description prompt's
// titles and descriptions, see completion(); else "<vendor> answer <8 hex of the prompt's
// hash>") and deterministic embeddings (64 dimensions, or STANDIN_EMBED_DIM from the
// environment, 1 to 8192, for benchmarks that measure the disk real vectors take: each word
// hashed into a signed bucket, L2 normalised, so texts sharing words get close vectors). A
// shape or auth problem is answered 400/401/403 with the vendor's error body, naming the
// problem.
//
// Knobs, by the key (or bedrock's access key id / bearer token) containing, as a word of its
// own (not preceded or followed by a lowercase letter or digit: "sk-bad-1f2e", "AKIA401EX";
// so the random lowercase hex that tests append to their keys never turns one on by chance,
// as "sk-good-3bad9…" or "…f401a…" did):
//   "401"      authentication failure with the vendor's body and status (the message
//              echoes the whole key, so that the client's scrubbing is tested)
//   "429once"  the first request of each (key, path) gets 429 + Retry-After: 1, then success
//   "slow"     the answer comes after 3 s
//   "stall"    the answer comes after 20 s (past a client's deadline)
//   "bad"      200 with a malformed JSON body
// and by the model "missing": the vendor's model-not-found error.
// GET /_log answers the requests seen so far (vendor, path, body; no auth headers).
'use strict';

const http = require('node:http');
const crypto = require('node:crypto');

const DIM = (() => {
	const d = Number(process.env.STANDIN_EMBED_DIM || 64);
	return Number.isInteger(d) && d >= 1 && d <= 8192 ? d : 64;
})();
const seen429 = new Set();

// 1 when knob stands in token as a word of its own (see the knobs above).
function knob(token, word) {
	return new RegExp(`(^|[^a-z0-9])${word}([^a-z0-9]|$)`).test(token);
}
const log = [];

function fnv1a(s) {
	let h = 0x811c9dc5;
	for (let i = 0; i < s.length; i++) {
		h ^= s.charCodeAt(i);
		h = Math.imul(h, 0x01000193) >>> 0;
	}
	return h >>> 0;
}

function embed(text) {
	const v = new Array(DIM).fill(0);
	const words = String(text).toLowerCase().match(/[a-z0-9_]+/g) || [];
	for (const w of words) {
		const h = fnv1a(w);
		v[h % DIM] += (h & 0x80000000) ? -1 : 1;
	}
	let norm = Math.sqrt(v.reduce((a, x) => a + x * x, 0));
	if (norm === 0) {
		v[0] = 1;
		norm = 1;
	}
	return v.map((x) => Math.round((x / norm) * 1e6) / 1e6);
}

function completion(vendor, prompt) {
	// A reranking prompt ("[1] ...", "[2] ..." snippets): the numbers in reverse order, so
	// that a test sees the reranker's effect.
	const nums = [...prompt.matchAll(/^\[(\d+)\] /gm)].map((m) => Number(m[1]));
	if (nums.length > 1 && /JSON array/.test(prompt))
		return `Ranking: ${JSON.stringify(nums.reverse())}`;
	// A description prompt ("### Snippet N" blocks, asking for "description"s): a JSON array
	// with, per snippet, "Generated title <6 hex>" and "Generated description <6 hex>."
	// where the hex is of the snippet's block, so that equal snippets get equal answers.
	const blocks = prompt.split(/^### Snippet (\d+)\n/m);
	if (blocks.length > 2 && /"description"/.test(prompt)) {
		const out = [];
		for (let i = 1; i + 1 < blocks.length; i += 2) {
			const h = crypto.createHash('sha256').update(blocks[i + 1].trim())
			    .digest('hex').slice(0, 6);
			out.push({ id: Number(blocks[i]), title: `Generated title ${h}`,
			    description: `Generated description ${h}.` });
		}
		return 'Here they are:\n' + JSON.stringify(out);
	}
	if (/\bok\b/i.test(prompt))
		return 'ok';
	const h = crypto.createHash('sha256').update(prompt).digest('hex').slice(0, 8);
	return `${vendor} answer ${h}`;
}

function isObj(x) {
	return x !== null && typeof x === 'object' && !Array.isArray(x);
}

// Throws a string naming the first problem when o has keys outside allowed or misses one
// of required.
function keys(o, where, required, optional = []) {
	if (!isObj(o))
		throw `${where} must be an object`;
	for (const k of Object.keys(o))
		if (!required.includes(k) && !optional.includes(k))
			throw `${where}: unexpected field "${k}"`;
	for (const k of required)
		if (!(k in o))
			throw `${where}: missing field "${k}"`;
}

function str(x, where) {
	if (typeof x !== 'string')
		throw `${where} must be a string`;
	return x;
}

function arr(x, where, min = 1, max = Infinity) {
	if (!Array.isArray(x) || x.length < min || x.length > max)
		throw `${where} must be an array of ${min}..${max} items`;
	return x;
}

// [{text}] parts -> joined text
function textParts(parts, where) {
	return arr(parts, where).map((p, i) => {
		keys(p, `${where}[${i}]`, ['text']);
		return str(p.text, `${where}[${i}].text`);
	}).join('\n');
}

// ---------------------------------------------------------------- vendor error bodies

const errors = {
	openai: {
		auth: (key) => [401, { error: { message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }],
		model: (m) => [404, { error: { message: `The model \`${m}\` does not exist or you do not have access to it.`, type: 'invalid_request_error', param: null, code: 'model_not_found' } }],
		rate: (m) => [429, { error: { message: `Rate limit reached for ${m} on requests per min (RPM): Limit 3, Used 3, Requested 1. Please try again in 1s.`, type: 'requests', param: 'requests', code: 'rate_limit_exceeded' } }],
		bad: (why) => [400, { error: { message: why, type: 'invalid_request_error', param: null, code: null } }],
	},
	anthropic: {
		auth: (key) => [401, { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key ${key}` } }],
		model: (m) => [404, { type: 'error', error: { type: 'not_found_error', message: `model: ${m}` } }],
		rate: () => [429, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit' } }],
		bad: (why) => [400, { type: 'error', error: { type: 'invalid_request_error', message: why } }],
	},
	gemini: {
		auth: (key) => [400, { error: { code: 400, message: `API key not valid. Please pass a valid API key. (${key})`, status: 'INVALID_ARGUMENT', details: [{ '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } }] } }],
		model: (m, method) => [404, { error: { code: 404, message: `models/${m} is not found for API version v1beta, or is not supported for ${method}. Call ListModels to see the list of available models and their supported methods.`, status: 'NOT_FOUND' } }],
		rate: () => [429, { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } }],
		bad: (why) => [400, { error: { code: 400, message: why, status: 'INVALID_ARGUMENT' } }],
	},
	bedrock: {
		auth: (key) => [403, { message: `The security token included in the request is invalid. (${key})` }, 'UnrecognizedClientException'],
		model: () => [400, { message: 'The provided model identifier is invalid.' }, 'ValidationException'],
		rate: () => [429, { message: 'Too many requests, please wait before trying again.' }, 'ThrottlingException'],
		bad: (why) => [400, { message: why }, 'ValidationException'],
		sig: (why) => [403, { message: why }, 'InvalidSignatureException'],
	},
};

function send(res, status, body, extra = {}) {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const headers = { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text), ...extra };
	try {
		res.writeHead(status, headers);
		res.end(text);
	} catch (e) {
		// the client went away (a timeout test)
	}
}

function sendError(res, vendor, tuple) {
	const [status, body, amznType] = tuple;
	const extra = {};
	if (amznType)
		extra['x-amzn-ErrorType'] = `${amznType}:http://internal.amazon.com/coral/com.amazon.bedrock/`;
	if (status === 429)
		extra['Retry-After'] = '1';
	send(res, status, body, extra);
}

// ---------------------------------------------------------------- auth

function bearer(req) {
	const m = /^Bearer (\S+)$/.exec(req.headers.authorization || '');
	return m ? m[1] : null;
}

// The bedrock caller's token (access key id or bearer token); throws [tuple] on bad auth.
function bedrockAuth(req, region) {
	const auth = req.headers.authorization || '';
	const b = bearer(req);
	if (b)
		return b;
	const m = /^AWS4-HMAC-SHA256 Credential=([A-Z0-9]{4,128})\/(\d{8})\/([a-z0-9-]+)\/([a-z-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
	if (!m)
		throw errors.bedrock.sig('Authorization header requires AWS4-HMAC-SHA256 Credential, SignedHeaders and Signature, or a Bearer token');
	const date = req.headers['x-amz-date'] || '';
	if (!/^\d{8}T\d{6}Z$/.test(date))
		throw errors.bedrock.sig('missing or malformed X-Amz-Date');
	if (date.slice(0, 8) !== m[2])
		throw errors.bedrock.sig('credential scope date does not match X-Amz-Date');
	if (m[4] !== 'bedrock')
		throw errors.bedrock.sig(`credential scope service must be bedrock, not ${m[4]}`);
	if (region && m[3] !== region)
		throw errors.bedrock.sig(`credential scope region ${m[3]} does not match ${region}`);
	const signed = m[5].split(';');
	for (const h of ['host', 'x-amz-date'])
		if (!signed.includes(h))
			throw errors.bedrock.sig(`SignedHeaders lacks ${h}`);
	if (req.headers['x-amz-security-token'] && !signed.includes('x-amz-security-token'))
		throw errors.bedrock.sig('SignedHeaders lacks x-amz-security-token');
	return m[1];
}

// ---------------------------------------------------------------- routes

// Each handler: (req, body, params) -> { vendor, token, model, answer() } or throws.
function route(method, path) {
	let m;
	if (method !== 'POST')
		return null;
	if (path === '/v1/chat/completions')
		return { vendor: 'openai', op: 'chat' };
	if (path === '/v1/embeddings')
		return { vendor: 'openai', op: 'embed' };
	if (path === '/v1/messages')
		return { vendor: 'anthropic', op: 'chat' };
	if ((m = /^\/v1beta\/models\/([^/:]+):(generateContent|batchEmbedContents)$/.exec(path)))
		return { vendor: 'gemini', op: m[2] === 'generateContent' ? 'chat' : 'embed', model: decodeURIComponent(m[1]), method: m[2] };
	if ((m = /^\/model\/([^/]+)\/(converse|invoke)$/.exec(path)))
		return { vendor: 'bedrock', op: m[2], model: decodeURIComponent(m[1]) };
	return null;
}

function handle(r, req, body) {
	const v = r.vendor;
	let token = null;
	let model = r.model;
	let out;

	// auth
	if (v === 'openai') {
		token = bearer(req);
		if (req.headers.authorization && !token)
			throw errors.openai.auth('(malformed Authorization header)');
		if (!token && process.env.STANDIN_CUSTOM_NOKEY !== '1')
			throw [401, { error: { message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", type: 'invalid_request_error', param: null, code: null } }];
	} else if (v === 'anthropic') {
		token = req.headers['x-api-key'];
		if (!token)
			throw [401, { type: 'error', error: { type: 'authentication_error', message: 'x-api-key header is required' } }];
		if (req.headers['anthropic-version'] !== '2023-06-01')
			throw errors.anthropic.bad('anthropic-version header must be 2023-06-01');
	} else if (v === 'gemini') {
		token = req.headers['x-goog-api-key'];
		if (!token)
			throw [403, { error: { code: 403, message: 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.', status: 'PERMISSION_DENIED' } }];
	} else {
		token = bedrockAuth(req, process.env.STANDIN_REGION || '');
	}
	if (!/^application\/json\b/.test(req.headers['content-type'] || ''))
		throw errors[v].bad('Content-Type must be application/json');
	if (token && knob(token, '401'))
		throw errors[v].auth(token);

	let j;
	try {
		j = JSON.parse(body);
	} catch (e) {
		throw errors[v].bad('the body is not JSON');
	}

	// shapes
	if (v === 'openai' && r.op === 'chat') {
		keys(j, 'body', ['model', 'messages']);
		model = str(j.model, 'model');
		const msgs = arr(j.messages, 'messages', 1, 2);
		msgs.forEach((mm, i) => {
			keys(mm, `messages[${i}]`, ['role', 'content']);
			str(mm.content, `messages[${i}].content`);
			if (!['system', 'user'].includes(mm.role))
				throw `messages[${i}].role must be system or user`;
		});
		if (msgs[msgs.length - 1].role !== 'user')
			throw 'the last message must be the user\'s';
		const text = completion('openai', msgs[msgs.length - 1].content);
		out = () => ({ id: 'chatcmpl-standin', object: 'chat.completion', created: 1700000000, model, choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 } });
	} else if (v === 'openai') {
		keys(j, 'body', ['model', 'input']);
		model = str(j.model, 'model');
		const input = arr(j.input, 'input', 1, 2048);
		input.forEach((t, i) => str(t, `input[${i}]`));
		out = () => ({ object: 'list', data: input.map((t, i) => ({ object: 'embedding', index: i, embedding: embed(t) })), model, usage: { prompt_tokens: 5, total_tokens: 5 } });
	} else if (v === 'anthropic') {
		keys(j, 'body', ['model', 'max_tokens', 'messages'], ['system']);
		model = str(j.model, 'model');
		if (!Number.isInteger(j.max_tokens) || j.max_tokens < 1)
			throw 'max_tokens must be a positive integer';
		if ('system' in j)
			str(j.system, 'system');
		const msgs = arr(j.messages, 'messages', 1, 1);
		keys(msgs[0], 'messages[0]', ['role', 'content']);
		if (msgs[0].role !== 'user')
			throw 'messages[0].role must be user';
		const text = completion('anthropic', str(msgs[0].content, 'messages[0].content'));
		out = () => ({ id: 'msg_standin', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } });
	} else if (v === 'gemini' && r.op === 'chat') {
		keys(j, 'body', ['contents'], ['systemInstruction']);
		if ('systemInstruction' in j) {
			keys(j.systemInstruction, 'systemInstruction', ['parts']);
			textParts(j.systemInstruction.parts, 'systemInstruction.parts');
		}
		const c = arr(j.contents, 'contents', 1, 1);
		keys(c[0], 'contents[0]', ['role', 'parts']);
		if (c[0].role !== 'user')
			throw 'contents[0].role must be user';
		const text = completion('gemini', textParts(c[0].parts, 'contents[0].parts'));
		out = () => ({ candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 }, modelVersion: model });
	} else if (v === 'gemini') {
		keys(j, 'body', ['requests']);
		const reqs = arr(j.requests, 'requests', 1, 100);
		const texts = reqs.map((q, i) => {
			keys(q, `requests[${i}]`, ['model', 'content'], ['taskType']);
			if (q.model !== `models/${model}`)
				throw `requests[${i}].model must be models/${model}`;
			if ('taskType' in q && !['RETRIEVAL_DOCUMENT', 'RETRIEVAL_QUERY'].includes(q.taskType))
				throw `requests[${i}].taskType is not a retrieval task`;
			keys(q.content, `requests[${i}].content`, ['parts']);
			return textParts(q.content.parts, `requests[${i}].content.parts`);
		});
		out = () => ({ embeddings: texts.map((t) => ({ values: embed(t) })) });
	} else if (r.op === 'converse') {
		keys(j, 'body', ['messages'], ['system']);
		if ('system' in j)
			textParts(j.system, 'system');
		const msgs = arr(j.messages, 'messages', 1, 1);
		keys(msgs[0], 'messages[0]', ['role', 'content']);
		if (msgs[0].role !== 'user')
			throw 'messages[0].role must be user';
		const text = completion('bedrock', textParts(msgs[0].content, 'messages[0].content'));
		out = () => ({ output: { message: { role: 'assistant', content: [{ text }] } }, stopReason: 'end_turn', usage: { inputTokens: 10, outputTokens: 1, totalTokens: 11 }, metrics: { latencyMs: 1 } });
	} else if (/cohere\.embed/.test(model)) {
		if (req.headers.accept !== 'application/json')
			throw 'Accept must be application/json';
		keys(j, 'body', ['texts', 'input_type']);
		const texts = arr(j.texts, 'texts', 1, 96).map((t, i) => str(t, `texts[${i}]`));
		if (!['search_document', 'search_query'].includes(j.input_type))
			throw 'input_type must be search_document or search_query';
		out = () => ({ id: 'standin', texts, embeddings: texts.map(embed), response_type: 'embeddings_floats' });
	} else if (/titan-embed/.test(model)) {
		if (req.headers.accept !== 'application/json')
			throw 'Accept must be application/json';
		keys(j, 'body', ['inputText']);
		const t = str(j.inputText, 'inputText');
		out = () => ({ embedding: embed(t), inputTextTokenCount: t.split(/\s+/).length });
	} else if (model !== 'missing') {
		throw `the stand-in does not know model ${model} for InvokeModel`;
	}
	if (model === 'missing')
		throw errors[v].model(model, r.method);
	return { token: token || '', model, out };
}

const server = http.createServer((req, res) => {
	const url = new URL(req.url, 'http://localhost');
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', () => {
		const body = Buffer.concat(chunks).toString('utf8');
		if (req.method === 'GET' && url.pathname === '/_log')
			return send(res, 200, log);
		const r = route(req.method, url.pathname);
		if (!r)
			return send(res, 404, { error: { message: `no route ${req.method} ${url.pathname}` } });
		log.push({ vendor: r.vendor, path: url.pathname, body });
		let h;
		try {
			h = handle(r, req, body);
		} catch (e) {
			if (typeof e === 'string')
				return sendError(res, r.vendor, errors[r.vendor].bad(e));
			if (Array.isArray(e))
				return sendError(res, r.vendor, e);
			return send(res, 500, { error: { message: String(e) } });
		}
		const t = h.token;
		const reply = () => {
			if (knob(t, 'bad'))
				return send(res, 200, '{"choices": [{"message": {"content": "tru');
			send(res, 200, h.out());
		};
		if (knob(t, '429once')) {
			const k = `${t} ${url.pathname}`;
			if (!seen429.has(k)) {
				seen429.add(k);
				return sendError(res, r.vendor, errors[r.vendor].rate(h.model));
			}
		}
		if (knob(t, 'stall'))
			return setTimeout(reply, 20000);
		if (knob(t, 'slow'))
			return setTimeout(reply, 3000);
		reply();
	});
});

const port = Number(process.argv[2] || 0);
server.listen(port, '127.0.0.1', () => {
	process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
