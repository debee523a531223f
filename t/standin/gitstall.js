#!/usr/bin/env node
// t/standin/gitstall.js: a git host that holds its clients, for the deadlines of a clone or
// fetch (t/t0135-git-stall.sh).
//
//   node t/standin/gitstall.js MODE [PORT [RATE]]   (PORT 0 or none: any free port, printed
//                                                   on the first line)
//
// MODE silent: accepts every connection and never sends a byte (nor closes).
// MODE drip:   answers every connection with the start of an HTTP answer, then one more
//              byte of a header that never ends, RATE bytes a second (default 4), forever.
//
// After the port, one line per connection: "connection N", so that a test can tell that the
// server was reached. Sockets are closed only when the client goes.
'use strict';

const net = require('node:net');

const [mode, portArg, rateArg] = process.argv.slice(2);
if (mode !== 'silent' && mode !== 'drip') {
	console.error('usage: gitstall.js silent|drip [PORT [RATE]]');
	process.exit(2);
}
const rate = Math.max(1, Math.min(1000, Number(rateArg || 4)));
let connections = 0;

const server = net.createServer((sock) => {
	let timer = null;

	connections++;
	console.log(`connection ${connections}`);
	sock.on('error', () => {});
	sock.on('close', () => { if (timer !== null) clearInterval(timer); });
	if (mode === 'silent')
		return;
	sock.write('HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-' +
		'advertisement\r\nX-Drip: ');
	timer = setInterval(() => { sock.write('a'); }, 1000 / rate);
});

server.listen(Number(portArg || 0), '127.0.0.1', () => {
	console.log(server.address().port);
});
