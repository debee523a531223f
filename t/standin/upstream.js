#!/usr/bin/env node
// t/standin/upstream.js: a local stand-in for a Context7-compatible upstream (the hosted
// API), for the tests of library ids and policies (t/t1140-policy-ids.sh).
//
//   node t/standin/upstream.js LOG [PORT]   (PORT 0 or none: any free port, printed)
//
// Every request is appended to the file LOG as one line: "METHOD PATH?QUERY", so that a
// test can tell which ids reached the upstream. Paths:
//   /api/v2/libs/search   {"results": [...]}: the same libraries whatever is asked, among
//                         them /vercel/next.js spelled in other cases and with versions,
//                         as a hostile or careless upstream might list them
//   /api/v2/context       200, text naming the libraryId it was asked for
//   anything else         404
'use strict';

const http = require('node:http');
const fs = require('node:fs');

const [logFile, portArg] = process.argv.slice(2);
if (!logFile) {
	console.error('usage: upstream.js LOG [PORT]');
	process.exit(2);
}

const libraries = ['/vercel/next.js', '/Vercel/Next.js', '/VERCEL/NEXT.JS',
	'/vercel/next.js/v15.0.0', '/vercel/next.js@canary', '/facebook/react'];

const server = http.createServer((req, res) => {
	fs.appendFileSync(logFile, `${req.method} ${req.url}\n`);
	const url = new URL(req.url, 'http://stand-in');
	if (url.pathname === '/api/v2/libs/search') {
		res.writeHead(200, { 'Content-Type': 'application/json' });
		res.end(JSON.stringify({ results: libraries.map((id) => ({ id,
			title: id.split('/')[2], description: 'stand-in', type: 'git',
			trustScore: 9, totalSnippets: 10 })) }));
	} else if (url.pathname === '/api/v2/context') {
		res.writeHead(200, { 'Content-Type': 'text/plain; charset=utf-8' });
		res.end(`### upstream context of ${url.searchParams.get('libraryId')}\n\n` +
			'Source: https://upstream.invalid/doc\n\nstand-in text\n');
	} else {
		res.writeHead(404, { 'Content-Type': 'application/json' });
		res.end('{"error": "not found"}');
	}
});

server.listen(Number(portArg || 0), '127.0.0.1', () => {
	console.log(server.address().port);
});
