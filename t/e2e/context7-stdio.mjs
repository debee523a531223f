// context7-stdio.mjs BASE LIBRARY_NAME QUERY: the unmodified @upstash/context7-mcp server,
// pointed at ctxd with CONTEXT7_API_URL=BASE/api, driven over stdio by the MCP SDK client:
// resolve-library-id and query-docs. Prints one JSON object for the TAP test.
import { createRequire } from "node:module";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [base, libName, query] = process.argv.slice(2);
const require = createRequire(import.meta.url);
const pkg = require.resolve("@upstash/context7-mcp/package.json");
const server = path.join(path.dirname(pkg), require(pkg).bin["context7-mcp"]);
const out = {};
const transport = new StdioClientTransport({
	command: process.execPath,
	args: [server],
	env: { ...process.env, CONTEXT7_API_URL: `${base}/api` },
	stderr: "inherit",
});
const client = new Client({ name: "ctxd-e2e", version: "1.0.0" });
try {
	await client.connect(transport);
	out.server = client.getServerVersion();
	out.tools = (await client.listTools()).tools.map((t) => t.name);
	const r = await client.callTool({
		name: "resolve-library-id",
		arguments: { libraryName: libName, query },
	});
	out.resolve = r.content[0].text;
	const d = await client.callTool({
		name: "query-docs",
		arguments: { libraryId: `/corpora/${libName}`, query },
	});
	out.docs = d.content[0].text;
	await client.close();
} catch (err) {
	out.error = String(err?.message ?? err);
}
console.log(JSON.stringify(out));
process.exit(0);
