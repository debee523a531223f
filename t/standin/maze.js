#!/usr/bin/env node
// t/standin/maze.js: hostile web sites for the crawler's limits (t/t0715-website-maze.sh).
//
//   node t/standin/maze.js KIND [PORT [OPTIONS]]   (PORT 0 or none: any free port, printed)
//
// KIND:
//   links     a link maze: every page under /maze/ links to --links N (default 10000) pages
//             never seen before, without end (each href --href B bytes long, default about
//             30). /maze/sitemap.xml and /robots.txt: 404.
//   sitemap   a sitemap bomb: /docs/sitemap.xml is a sitemap index naming --sitemaps K
//             (default 10) sitemaps, each a urlset of --urls M (default 50000) pages under
//             /docs/; every page is a small HTML page.
//   noindex   /docs/ links to /docs/n1.html, and every /docs/nI.html is a page marked
//             <meta name="robots" content="noindex"> of --size S bytes (default 262144)
//             linking to the next one, without end.
//
// Options: --log FILE appends one line "METHOD PATH" per request.
'use strict';

const http = require('node:http');
const fs = require('node:fs');

const [kind, portArg, ...rest] = process.argv.slice(2);
const opt = { links: 10000, href: 0, sitemaps: 10, urls: 50000, size: 262144, log: '' };
for (let i = 0; i + 1 < rest.length; i += 2) {
	const k = rest[i].replace(/^--/, '');
	if (!(k in opt)) {
		console.error(`maze.js: unknown option ${rest[i]}`);
		process.exit(2);
	}
	opt[k] = k === 'log' ? rest[i + 1] : Number(rest[i + 1]);
}
if (!['links', 'sitemap', 'noindex'].includes(kind)) {
	console.error('usage: maze.js links|sitemap|noindex [PORT [--links N] [--href B] ' +
	    '[--sitemaps K] [--urls M] [--size S] [--log FILE]]');
	process.exit(2);
}

let next = 0;	// the maze's pages: numbered, never twice

function html(res, body) {
	res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
	res.end(`<!doctype html><html><head><title>page</title></head><body>${body}</body></html>\n`);
}

function xml(res, body) {
	res.writeHead(200, { 'Content-Type': 'application/xml' });
	res.end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}\n`);
}

function notFound(res) {
	res.writeHead(404, { 'Content-Type': 'text/plain' });
	res.end('not found\n');
}

function mazePage(res) {
	const pad = opt.href > 30 ? 'x'.repeat(opt.href - 30) : '';
	const parts = [`<h1>Maze room ${next}</h1><p>Rooms lead to rooms.</p>`];
	for (let i = 0; i < opt.links; i++)
		parts.push(`<a href="/maze/r${++next}${pad}">${i}</a>\n`);
	html(res, parts.join(''));
}

function sitemapIndex(res, base) {
	const parts = ['<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
	for (let k = 0; k < opt.sitemaps; k++)
		parts.push(`<sitemap><loc>${base}/docs/sm-${k}.xml</loc></sitemap>`);
	parts.push('</sitemapindex>');
	xml(res, parts.join('\n'));
}

function sitemapUrls(res, base, k) {
	const parts = ['<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'];
	for (let i = 0; i < opt.urls; i++)
		parts.push(`<url><loc>${base}/docs/s${k}-${i}.html</loc></url>`);
	parts.push('</urlset>');
	xml(res, parts.join('\n'));
}

function noindexPage(res, i) {
	const filler = '<p>' + 'lorem ipsum '.repeat(Math.ceil(opt.size / 12)).slice(0, opt.size) +
	    '</p>';
	html(res, `<meta name="robots" content="noindex"><h1>Stub ${i}</h1>` +
	    `<a href="/docs/n${i + 1}.html">next</a>${filler}`);
}

const server = http.createServer((req, res) => {
	if (opt.log)
		fs.appendFileSync(opt.log, `${req.method} ${req.url}\n`);
	const base = `http://${req.headers.host}`;
	const path = req.url.split('?')[0];
	let m;
	if (kind === 'links' && path.startsWith('/maze/') && path !== '/maze/sitemap.xml' &&
	    path !== '/maze/sitemap.xml.gz')
		mazePage(res);
	else if (kind === 'sitemap' && path === '/docs/sitemap.xml')
		sitemapIndex(res, base);
	else if (kind === 'sitemap' && (m = /^\/docs\/sm-(\d+)\.xml$/.exec(path)) !== null)
		sitemapUrls(res, base, Number(m[1]));
	else if (kind === 'sitemap' && path.startsWith('/docs/') && path.endsWith('.html'))
		html(res, `<h1>${path}</h1><p>One of many pages.</p>`);
	else if (kind === 'sitemap' && path === '/docs/')
		html(res, '<h1>Docs</h1><p>The sitemap names the pages.</p>');
	else if (kind === 'noindex' && path === '/docs/')
		html(res, '<h1>Docs</h1><p>The stubs follow.</p><a href="/docs/n1.html">n1</a>');
	else if (kind === 'noindex' && (m = /^\/docs\/n(\d+)\.html$/.exec(path)) !== null)
		noindexPage(res, Number(m[1]));
	else
		notFound(res);
});

server.listen(Number(portArg || 0), '127.0.0.1', () => {
	console.log(server.address().port);
});
