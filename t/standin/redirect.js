#!/usr/bin/env node
// t/standin/redirect.js: a local stand-in for a git host that redirects or asks for
// credentials, for the address-policy tests (t/t0125-address-policy.sh).
//
//   node t/standin/redirect.js LOG [PORT [HOST]]   (PORT 0 or none: any free port, printed;
//                                                   HOST default 127.0.0.1)
//
// Every request is appended to the file LOG as one line: "METHOD PATH AUTHORIZATION" (the
// Authorization header as received, "-" when there is none), so that a test can tell whether
// a token reached this server. Paths:
//   /r302/HOST:PORT/REST   302 to http://HOST:PORT/REST (the query string kept)
//   /a302/HOST:PORT/REST   401 (Basic) without Authorization; with it, 302 as /r302/
//   anything else          401 with WWW-Authenticate: Basic
'use strict';

const http = require('node:http');
const fs = require('node:fs');

const [logFile, portArg, hostArg] = process.argv.slice(2);
if (!logFile) {
	console.error('usage: redirect.js LOG [PORT [HOST]]');
	process.exit(2);
}

function unauthorized(res) {
	res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="stand-in"',
		'Content-Type': 'text/plain' });
	res.end('authentication required\n');
}

const server = http.createServer((req, res) => {
	const auth = req.headers.authorization || '-';
	fs.appendFileSync(logFile, `${req.method} ${req.url} ${auth}\n`);
	const m = /^\/([ar])302\/([^/]+)(\/.*)?$/.exec(req.url);
	if (m === null || (m[1] === 'a' && auth === '-')) {
		unauthorized(res);
		return;
	}
	res.writeHead(302, { Location: `http://${m[2]}${m[3] || '/'}`,
		'Content-Type': 'text/plain' });
	res.end('moved\n');
});

server.listen(Number(portArg || 0), hostArg || '127.0.0.1', () => {
	console.log(server.address().port);
});
