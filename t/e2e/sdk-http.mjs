// sdk-http.mjs BASE LIBRARY_NAME QUERY [KEY]: the official MCP TypeScript SDK client over
// Streamable HTTP against BASE/mcp: connect, list tools, call resolve-library-id and
// query-docs (on /corpora/LIBRARY_NAME). Prints one JSON object with what it saw (or the
// error it got) for the TAP test to check.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [base, libName, query, key] = process.argv.slice(2);
const headers = key ? { Authorization: `Bearer ${key}` } : {};
const out = {};
const client = new Client({ name: "ctxd-e2e", version: "1.0.0" });
const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
	requestInit: { headers },
});
try {
	await client.connect(transport);
	out.server = client.getServerVersion();
	out.protocolVersion = transport.protocolVersion ?? null;
	out.instructions = client.getInstructions() ?? null;
	out.tools = (await client.listTools()).tools.map((t) => t.name);
	const r = await client.callTool({
		name: "resolve-library-id",
		arguments: { libraryName: libName, query },
	});
	out.resolve = r.content[0].text;
	out.resolveIsError = r.isError === true;
	const d = await client.callTool({
		name: "query-docs",
		arguments: { libraryId: `/corpora/${libName}`, query },
	});
	out.docs = d.content[0].text;
	out.docsIsError = d.isError === true;
	const e = await client.callTool({
		name: "query-docs",
		arguments: { libraryId: "/nobody/nothing", query },
	});
	out.missingIsError = e.isError === true;
	out.missing = e.content[0].text;
	try {
		await client.callTool({ name: "no-such-tool", arguments: {} });
		out.unknownTool = "no error";
	} catch (err) {
		out.unknownTool = err.code ?? String(err);
	}
	await client.ping();
	out.ping = true;
	await client.close();
} catch (err) {
	out.error = String(err?.message ?? err);
	out.code = err?.code ?? null;
}
console.log(JSON.stringify(out));
