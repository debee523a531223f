#!/usr/bin/env node
// t/standin/wiki.js: a local stand-in for a Confluence-type wiki's REST API, for the tests.
//
//   node t/standin/wiki.js KIND [PORT] [--token T] [--email E] [--context /PATH]
//                          [--limit N] [--data DIR] [--delay-ms N]
//
// KIND is cloud or datacenter; PORT 0 or none: any free port (the port is printed on the
// first line of stdout). The wire format is the vendor's documented one:
//   cloud (REST v2, https://developer.atlassian.com/cloud/confluence/rest/v2/):
//     GET /wiki/api/v2/spaces?keys=K[,K]            {results: [space], _links}
//     GET /wiki/api/v2/spaces/{id}/pages?body-format=storage&limit=N[&cursor=C]
//     GET /wiki/api/v2/pages/{id}[?body-format=storage]
//     GET /wiki/api/v2/pages/{id}/children?limit=N[&cursor=C]
//       lists: cursor pagination, _links.next a relative URL (/wiki/api/v2/...&cursor=C)
//       and a Link: <...>; rel="next" header; auth Authorization: Basic base64(EMAIL:TOKEN)
//   datacenter (REST, https://developer.atlassian.com/server/confluence/rest/):
//     GET CONTEXT/rest/api/content?spaceKey=K&type=page[&title=T]&expand=...&start=S&limit=N
//     GET CONTEXT/rest/api/content/{id}?expand=body.storage,version
//     GET CONTEXT/rest/api/content/{id}/child/page?expand=...&start=S&limit=N
//       lists: {results, start, limit, size, _links: {base, context, next?, self}}, the
//       next link relative to the context; auth Authorization: Bearer TOKEN
// A request without the kind's right Authorization gets 401 with the vendor's error body.
// A limit above --limit (default 3) is cut to it, so the tests paginate. A request for one
// page by id is answered after --delay-ms (default 0), so that concurrent requests overlap.
//
// The data: two spaces, ENG (Engineering) and OPS (Operations), each a tree of pages
// (parents, children, grandchildren) whose bodies are the storage-format files of DIR
// (default t/corpora/fixtures/wiki/storage/testdata), byte for
// byte. Each page starts at version 1.
//
// Test knobs:
//   POST /_edit/{id}      bumps the page's version and appends a paragraph to its body
//   POST /_touch/{id}     changes the page's body without a new version (as a site's
//                         storage-format migration does: macro ids added)
//   POST /_fail/{n}/{status}  the next n API requests (authorised) answer that status
//                         (503 with Retry-After: 0; 403 with the vendor's body; a 3xx
//                         to http://localhost:PORT/elsewhere, another origin)
//   POST /_loop           from now on every list's next link is the same (a loop)
//   GET  /_log            the requests seen: method, path with query, auth "ok", "bad" or
//                         "none" (never the header's value)
//   GET  /_stats          {"maxInflight": N}: the most page-by-id requests that were in
//                         flight at once since the last GET /_stats
//   GET  /_tiny/{id}      the page's tiny link key (the /x/KEY of its tinyui)
'use strict';

const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const KIND = args.shift();
if (KIND !== 'cloud' && KIND !== 'datacenter') {
	process.stderr.write('usage: wiki.js cloud|datacenter [PORT] [--token T] ...\n');
	process.exit(2);
}
let PORT = 0;
if (args.length && !args[0].startsWith('--'))
	PORT = Number(args.shift());
const opt = { token: 'wiki-token', email: 'wiki@example.com', context: '', limit: 3,
	'delay-ms': 0,
	data: path.join(__dirname, '../corpora/fixtures/wiki/storage/testdata') };
while (args.length) {
	const k = args.shift().replace(/^--/, '');
	opt[k] = args.shift();
}
opt.limit = Number(opt.limit);
const CTX = KIND === 'cloud' ? '/wiki' : opt.context.replace(/\/+$/, '');

// The spaces and their page trees: [id, title, file, parent id].
const spaces = [
	{ id: '98305', key: 'ENG', name: 'Engineering' },
	{ id: '98306', key: 'OPS', name: 'Operations' },
];
const tree = {
	ENG: [
		['65537', 'Engineering Home', 'admonitions.html', null],
		['65538', 'Code Samples', 'codes.html', '65537'],
		['65539', 'Links and Images', 'links.html', '65537'],
		['65540', 'Shell Comments', 'codeblock-comments.html', '65538'],
		['65541', 'Tables', 'table.html', '65537'],
		['65542', 'Task Lists', 'tasklists.html', '65537'],
		['65543', 'Mentions', 'mention.html', '65540'],
		['65544', 'Page Layout', 'pagelayout.html', '65537'],
	],
	OPS: [
		['131073', 'Operations Home', 'quotes.html', null],
		['131074', 'Runbook Headers', 'heading-anchor-links.html', '131073'],
		['131075', 'Include Macros', 'macro-include.html', '131073'],
		['131076', 'Math Notes', 'math.html', '131075'],
	],
};
const pages = new Map();
for (const s of spaces)
	tree[s.key].forEach(([id, title, file, parent], i) => {
		pages.set(id, { id, title, space: s, parent, position: i, version: 1,
			body: fs.readFileSync(path.join(opt.data, file), 'utf8') });
	});
const log = [];
let loop = false;
let failN = 0, failStatus = 503;
let inflight = 0, maxInflight = 0;

// Answers a page-by-id request after --delay-ms, counting the requests in flight.
function delayed(res, status, body) {
	inflight++;
	maxInflight = Math.max(maxInflight, inflight);
	setTimeout(() => {
		inflight--;
		send(res, status, body);
	}, Number(opt['delay-ms']));
}

// The tiny link key of a page id: its 8 little-endian bytes in base64, '=' and trailing
// 'A's dropped, '/' written '-' and '+' written '_' (Confluence's TinyUrl).
function tiny(id) {
	const b = Buffer.alloc(8);
	b.writeBigUInt64LE(BigInt(id));
	return b.toString('base64').replace(/=+$/, '').replace(/A+$/, '')
		.replace(/\//g, '-').replace(/\+/g, '_');
}

function plus(t) {
	return encodeURIComponent(t).replace(/%20/g, '+');
}

function webui(p) {
	return KIND === 'cloud' ? `/spaces/${p.space.key}/pages/${p.id}/${plus(p.title)}` :
		`/display/${p.space.key}/${plus(p.title)}`;
}

function base(req) {
	return `http://${req.headers.host}${CTX}`;
}

function authOk(req) {
	const a = req.headers.authorization || '';
	const want = KIND === 'cloud' ?
		'Basic ' + Buffer.from(`${opt.email}:${opt.token}`).toString('base64') :
		`Bearer ${opt.token}`;
	return a === want ? 'ok' : a === '' ? 'none' : 'bad';
}

function send(res, status, body, headers) {
	const b = JSON.stringify(body);
	res.writeHead(status, Object.assign({ 'Content-Type': 'application/json',
		'Content-Length': Buffer.byteLength(b) }, headers || {}));
	res.end(b);
}

function notFound(res, what) {
	if (KIND === 'cloud')
		return send(res, 404, { errors: [{ status: 404, code: 'NOT_FOUND',
			title: `${what} not found`, detail: null }] });
	send(res, 404, { statusCode: 404, data: { authorized: true, valid: true, errors: [],
		successful: false }, message: `No content found with id: ${what}`, reason: 'Not Found' });
}

// ------------------------------------------------------------------------ cloud (v2)

function cloudPage(p, withBody) {
	const o = {
		id: p.id, status: 'current', title: p.title, spaceId: p.space.id,
		parentId: p.parent, parentType: p.parent ? 'page' : null, position: p.position,
		authorId: '557058:standin', ownerId: '557058:standin', lastOwnerId: null,
		createdAt: '2026-01-01T00:00:00.000Z',
		version: { createdAt: '2026-01-01T00:00:00.000Z', message: '', number: p.version,
			minorEdit: false, authorId: '557058:standin' },
		body: withBody ? { storage: { representation: 'storage', value: p.body } } : {},
		_links: { webui: webui(p), editui: `/pages/resumedraft.action?draftId=${p.id}`,
			tinyui: `/x/${tiny(p.id)}` },
	};
	return o;
}

// A cursor-paginated answer of items, the next link keeping the request's parameters.
function cloudList(req, res, url, items) {
	const limit = Math.min(Number(url.searchParams.get('limit') || 25), opt.limit);
	const cur = url.searchParams.get('cursor');
	const start = cur ? Number(Buffer.from(cur, 'base64url').toString().replace(/^o/, '')) : 0;
	const slice = items.slice(start, start + limit);
	const links = { base: base(req) };
	const headers = {};
	if (start + limit < items.length || (loop && slice.length)) {
		const n = new URL(url);
		n.searchParams.set('cursor', Buffer.from(`o${loop ? start : start + limit}`)
			.toString('base64url'));
		links.next = `${n.pathname}${n.search}`;
		headers.Link = `<${links.next}>; rel="next", <${base(req)}>; rel="base"`;
	}
	send(res, 200, { results: slice, _links: links }, headers);
}

function cloud(req, res, url) {
	const p = url.pathname;
	let m;
	const body = url.searchParams.get('body-format') === 'storage';
	if (p === '/wiki/api/v2/spaces') {
		const keys = (url.searchParams.get('keys') || '').split(',');
		return cloudList(req, res, url, spaces.filter((s) => keys.includes(s.key))
			.map((s) => ({ id: s.id, key: s.key, name: s.name, type: 'global',
				status: 'current', homepageId: tree[s.key][0][0],
				_links: { webui: `/spaces/${s.key}` } })));
	}
	if ((m = p.match(/^\/wiki\/api\/v2\/spaces\/(\d+)\/pages$/))) {
		const s = spaces.find((x) => x.id === m[1]);
		if (!s)
			return notFound(res, `Space ${m[1]}`);
		return cloudList(req, res, url, [...pages.values()].filter((x) => x.space === s)
			.map((x) => cloudPage(x, body)));
	}
	if ((m = p.match(/^\/wiki\/api\/v2\/pages\/(\d+)$/))) {
		const pg = pages.get(m[1]);
		if (!pg)
			return notFound(res, `Page ${m[1]}`);
		const o = cloudPage(pg, body);
		o._links.base = base(req);
		return delayed(res, 200, o);
	}
	if ((m = p.match(/^\/wiki\/api\/v2\/pages\/(\d+)\/children$/))) {
		if (!pages.has(m[1]))
			return notFound(res, `Page ${m[1]}`);
		return cloudList(req, res, url, [...pages.values()].filter((x) => x.parent === m[1])
			.map((x) => ({ id: x.id, status: 'current', title: x.title,
				spaceId: x.space.id, childPosition: x.position })));
	}
	notFound(res, p);
}

// ------------------------------------------------------------------------ datacenter

function dcPage(req, p, expand) {
	const o = { id: p.id, type: 'page', status: 'current', title: p.title };
	if (expand.includes('version'))
		o.version = { by: { type: 'known', username: 'standin' },
			when: '2026-01-01T00:00:00.000Z', number: p.version, minorEdit: false };
	if (expand.includes('body.storage'))
		o.body = { storage: { value: p.body, representation: 'storage' },
			_expandable: { view: '', export_view: '' } };
	o.extensions = { position: p.position };
	o._links = { webui: webui(p), edit: `/pages/resumedraft.action?draftId=${p.id}`,
		tinyui: `/x/${tiny(p.id)}`, self: `${base(req)}/rest/api/content/${p.id}` };
	o._expandable = { container: `/rest/api/space/${p.space.key}`, children:
		`/rest/api/content/${p.id}/child`, ancestors: '' };
	return o;
}

// An offset-paginated answer; the next link relative to the context path.
function dcList(req, res, url, items) {
	const limit = Math.min(Number(url.searchParams.get('limit') || 25), opt.limit);
	const start = Number(url.searchParams.get('start') || 0);
	const expand = (url.searchParams.get('expand') || '').split(',');
	const slice = items.slice(start, start + limit).map((p) => dcPage(req, p, expand));
	const links = { base: base(req), context: CTX,
		self: `${base(req)}${url.pathname.slice(CTX.length)}${url.search}` };
	if (start + limit < items.length || (loop && slice.length)) {
		const n = new URL(url);
		n.searchParams.set('start', String(loop ? start : start + limit));
		n.searchParams.set('limit', String(limit));
		links.next = `${n.pathname.slice(CTX.length)}${n.search}`;
	}
	send(res, 200, { results: slice, start, limit, size: slice.length, _links: links });
}

function datacenter(req, res, url) {
	if (!url.pathname.startsWith(`${CTX}/rest/api/`))
		return notFound(res, url.pathname);
	const p = url.pathname.slice(CTX.length);
	let m;
	if (p === '/rest/api/content') {
		const key = url.searchParams.get('spaceKey');
		const title = url.searchParams.get('title');
		return dcList(req, res, url, [...pages.values()].filter((x) =>
			(!key || x.space.key === key) && (title === null || x.title === title)));
	}
	if ((m = p.match(/^\/rest\/api\/content\/(\d+)$/))) {
		const pg = pages.get(m[1]);
		if (!pg)
			return notFound(res, m[1]);
		return delayed(res, 200, dcPage(req, pg, (url.searchParams.get('expand') || '')
			.split(',')));
	}
	if ((m = p.match(/^\/rest\/api\/content\/(\d+)\/child\/page$/))) {
		if (!pages.has(m[1]))
			return notFound(res, m[1]);
		return dcList(req, res, url, [...pages.values()].filter((x) => x.parent === m[1]));
	}
	notFound(res, p);
}

// ------------------------------------------------------------------------ the server

const server = http.createServer((req, res) => {
	const url = new URL(req.url, `http://${req.headers.host || 'localhost'}`);
	req.resume();
	req.on('end', () => {
		let m;
		if (req.method === 'GET' && url.pathname === '/_log')
			return send(res, 200, log);
		if (req.method === 'POST' && (m = url.pathname.match(/^\/_fail\/(\d+)\/(\d{3})$/))) {
			failN = Number(m[1]);
			failStatus = Number(m[2]);
			return send(res, 200, { failN, failStatus });
		}
		if (req.method === 'POST' && url.pathname === '/_loop') {
			loop = true;
			return send(res, 200, { loop });
		}
		if (req.method === 'GET' && url.pathname === '/_stats') {
			const r = { maxInflight };
			maxInflight = 0;
			return send(res, 200, r);
		}
		if ((m = url.pathname.match(/^\/_tiny\/(\d+)$/)))
			return send(res, 200, { key: tiny(m[1]) });
		if (req.method === 'POST' && (m = url.pathname.match(/^\/_edit\/(\d+)$/))) {
			const pg = pages.get(m[1]);
			if (!pg)
				return notFound(res, m[1]);
			pg.version++;
			pg.body += `<p>Edited in revision ${pg.version}: wikirevision${pg.version}</p>`;
			return send(res, 200, { id: pg.id, version: pg.version });
		}
		if (req.method === 'POST' && (m = url.pathname.match(/^\/_touch\/(\d+)$/))) {
			const pg = pages.get(m[1]);
			if (!pg)
				return notFound(res, m[1]);
			pg.body = pg.body.replace(/<ac:structured-macro ac:name="([a-z]+)">/g,
				'<ac:structured-macro ac:name="$1" ac:macro-id="standin-touched">');
			pg.body += '<p>touched</p>';
			return send(res, 200, { id: pg.id, version: pg.version });
		}
		const auth = authOk(req);
		log.push({ method: req.method, path: url.pathname + url.search, auth });
		if (auth !== 'ok') {
			if (KIND === 'cloud')
				return send(res, 401, { code: 401, message: 'Unauthorized; scope does ' +
					'not match' }, { 'WWW-Authenticate': 'Basic realm="Confluence"' });
			return send(res, 401, { statusCode: 401, message: 'This request requires ' +
				'authentication', reason: 'Unauthorized' });
		}
		if (req.method !== 'GET')
			return send(res, 405, { message: 'method not allowed' });
		if (failN > 0) {
			failN--;
			if (failStatus >= 300 && failStatus < 400)
				return send(res, failStatus, { message: 'moved' }, { Location:
					`http://localhost:${server.address().port}/elsewhere${url.search}` });
			if (failStatus === 503)
				return send(res, 503, { message: 'Service Unavailable' },
					{ 'Retry-After': '0' });
			return send(res, failStatus, KIND === 'cloud' ?
				{ errors: [{ status: failStatus, code: 'PERMISSION_DENIED',
					title: 'Not permitted to read this content', detail: null }] } :
				{ statusCode: failStatus, message: 'Not permitted', reason: 'Forbidden' });
		}
		(KIND === 'cloud' ? cloud : datacenter)(req, res, url);
	});
});

server.listen(PORT, '127.0.0.1', () => {
	process.stdout.write(`${server.address().port}\n`);
});
process.on('SIGTERM', () => process.exit(0));
