#!/usr/bin/env node
// t/standin/github.js: a local stand-in for the GitHub REST API of a GitHub App, for the
// tests.
//
//   node t/standin/github.js [PORT] --app-id N --public-key FILE --token T
//                            [--installation N] [--repos owner/repo,...] [--ttl SECONDS]
//
// PORT 0 or none: any free port (printed on the first line of stdout). The wire format is
// GitHub's documented one (https://docs.github.com/en/rest/apps/apps):
//   GET  /repos/{owner}/{repo}/installation         200 {id, app_id, account, ...}
//                                                   (404 for a repository not in --repos)
//   POST /app/installations/{id}/access_tokens      201 {token, expires_at, permissions,
//                                                   repository_selection}
// Both need "Authorization: Bearer JWT": an RS256 JWT whose signature verifies with the
// App's public key (--public-key, PEM), with iss the App id (--app-id, a number or its
// decimal string), iat not in the future, exp in the future and at most 10 minutes after
// now (GitHub refuses more): else 401 {"message": "...", "documentation_url": ...}, as
// GitHub answers. The token issued is --token (the test git server's password), valid for
// --ttl seconds (default 3600); a wrong installation id gets 404.
//
// Test knobs:
//   GET  /_stats         {"mints": N, "lookups": N, "refused": N}
//   POST /_ttl/{s}       tokens minted from now on are valid for s seconds
'use strict';

const http = require('node:http');
const fs = require('node:fs');
const crypto = require('node:crypto');

const args = process.argv.slice(2);
let PORT = 0;
if (args.length && !args[0].startsWith('--'))
	PORT = Number(args.shift());
const opt = { 'app-id': '', 'public-key': '', token: '', installation: '4242', repos: '',
	ttl: '3600' };
while (args.length) {
	const k = args.shift().replace(/^--/, '');
	if (!(k in opt) || !args.length) {
		process.stderr.write(`github.js: bad option --${k}\n`);
		process.exit(2);
	}
	opt[k] = args.shift();
}
if (!opt['app-id'] || !opt['public-key'] || !opt.token) {
	process.stderr.write('github.js: --app-id, --public-key and --token are required\n');
	process.exit(2);
}
const pubkey = crypto.createPublicKey(fs.readFileSync(opt['public-key']));
const repos = new Set(opt.repos ? opt.repos.split(',') : []);
let ttl = Number(opt.ttl);
const stats = { mints: 0, lookups: 0, refused: 0 };
const DOC = 'https://docs.github.com/rest';

function send(res, status, obj) {
	const body = JSON.stringify(obj);
	res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8',
		'Content-Length': Buffer.byteLength(body) });
	res.end(body);
}

function b64json(s) {
	return JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
}

// Why the request's JWT is refused, or '' when it is good.
function jwtProblem(req) {
	const m = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/
		.exec(req.headers.authorization || '');
	if (!m)
		return 'A JSON web token could not be decoded';
	let head, claims;
	try {
		head = b64json(m[1]);
		claims = b64json(m[2]);
	} catch (e) {
		return 'A JSON web token could not be decoded';
	}
	if (head.alg !== 'RS256')
		return `'alg' must be RS256, not ${head.alg}`;
	if (!crypto.verify('sha256', Buffer.from(`${m[1]}.${m[2]}`), pubkey,
	    Buffer.from(m[3], 'base64url')))
		return 'A JSON web token could not be decoded';
	const now = Math.floor(Date.now() / 1000);
	if (String(claims.iss) !== opt['app-id'])
		return `'Issuer' claim ('iss') must be an Integer or the client ID`;
	if (!Number.isInteger(claims.iat) || claims.iat > now + 1)
		return "'Issued at' claim ('iat') must be an Integer representing a time in the past";
	if (!Number.isInteger(claims.exp) || claims.exp <= now || claims.exp > now + 600)
		return "'Expiration time' claim ('exp') is too far in the future";
	return '';
}

function handle(req, res) {
	const url = new URL(req.url, 'http://localhost');
	let m;
	if (req.method === 'GET' && url.pathname === '/_stats')
		return send(res, 200, stats);
	if (req.method === 'POST' && (m = /^\/_ttl\/(\d+)$/.exec(url.pathname))) {
		ttl = Number(m[1]);
		return send(res, 200, { ttl });
	}
	const why = jwtProblem(req);
	if (why) {
		stats.refused++;
		return send(res, 401, { message: why, documentation_url: DOC });
	}
	if (req.method === 'GET' &&
	    (m = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(url.pathname))) {
		stats.lookups++;
		if (!repos.has(`${m[1]}/${m[2]}`))
			return send(res, 404, { message: 'Not Found', documentation_url: DOC });
		return send(res, 200, { id: Number(opt.installation), app_id: Number(opt['app-id']),
			account: { login: m[1], id: 1, type: 'Organization' },
			repository_selection: 'selected', target_type: 'Organization',
			permissions: { contents: 'read', metadata: 'read' }, events: ['push'] });
	}
	if (req.method === 'POST' &&
	    (m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname))) {
		if (m[1] !== opt.installation)
			return send(res, 404, { message: 'Not Found', documentation_url: DOC });
		stats.mints++;
		const exp = new Date((Math.floor(Date.now() / 1000) + ttl) * 1000);
		return send(res, 201, { token: opt.token,
			expires_at: exp.toISOString().replace(/\.\d+Z$/, 'Z'),
			permissions: { contents: 'read', metadata: 'read' },
			repository_selection: 'selected' });
	}
	return send(res, 404, { message: 'Not Found', documentation_url: DOC });
}

const server = http.createServer((req, res) => {
	req.resume();
	req.on('end', () => handle(req, res));
});
server.listen(PORT, '127.0.0.1', () => {
	process.stdout.write(`${server.address().port}\n`);
});
