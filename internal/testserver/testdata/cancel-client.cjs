// cancel-client.cjs cancels a call with the TypeScript SDK's client (what
// Claude Code and VS Code build on): it calls the testserver's sleep tool
// over stdio, aborts it, which makes the SDK send notifications/cancelled,
// then makes one more call to show the server still serves. The server's
// stderr (its audit log) passes through to this script's stderr. It prints
// one JSON line.
//
//   node cancel-client.cjs PEERS_DIR SERVER_COMMAND
'use strict';

const [peers, target] = process.argv.slice(2);
const load = (m) => require(require.resolve(m, { paths: [peers] }));
const { Client } = load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = load('@modelcontextprotocol/sdk/client/stdio.js');
const { CallToolResultSchema } = load('@modelcontextprotocol/sdk/types.js');

(async () => {
  const client = new Client({ name: 'cancel-client', version: '0' });
  await client.connect(new StdioClientTransport({ command: target, stderr: 'inherit' }));
  const out = {};
  const abort = new AbortController();
  setTimeout(() => abort.abort('the person stopped it'), 500);
  try {
    await client.callTool({ name: 'sleep', arguments: { millis: 20000 } }, CallToolResultSchema, { signal: abort.signal });
    out.cancelled = 'the call completed';
  } catch (e) {
    out.cancelled = String(e.message);
  }
  const res = await client.callTool({ name: 'sleep', arguments: { millis: 1 } }, CallToolResultSchema);
  out.after = res.content[0].text;
  await client.close();
  console.log(JSON.stringify(out));
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
