// progress-client.cjs calls the testserver's sleep tool with the
// TypeScript SDK's client (what Claude Code and VS Code build on), with a
// request timeout shorter than the sleep, twice: once with a progress
// handler and resetTimeoutOnProgress, once without. It prints one JSON
// line per call.
//
//   node progress-client.cjs PEERS_DIR stdio|http TARGET SLEEP_MS TIMEOUT_MS
//
// TARGET is the server command (stdio) or its /mcp URL (http). The SDK is
// loaded from PEERS_DIR, where .ci/install-peers installs it.
'use strict';

const [peers, mode, target, sleepArg, timeoutArg] = process.argv.slice(2);
const load = (m) => require(require.resolve(m, { paths: [peers] }));
const { Client } = load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = load('@modelcontextprotocol/sdk/client/stdio.js');
const { StreamableHTTPClientTransport } = load('@modelcontextprotocol/sdk/client/streamableHttp.js');
const { CallToolResultSchema } = load('@modelcontextprotocol/sdk/types.js');

const sleepMs = Number(sleepArg);
const timeout = Number(timeoutArg);

async function call(withProgress) {
  const client = new Client({ name: 'progress-client', version: '0' });
  const transport = mode === 'stdio'
    ? new StdioClientTransport({ command: target, stderr: 'ignore' })
    : new StreamableHTTPClientTransport(new URL(target));
  await client.connect(transport);
  const out = { progress: withProgress, notifications: 0 };
  const start = Date.now();
  // The same options but the handler: without one the SDK sends no
  // progress token, so the server has no way to keep the call alive.
  const opts = { timeout, resetTimeoutOnProgress: true };
  if (withProgress) {
    opts.onprogress = () => { out.notifications++; };
  }
  try {
    const res = await client.callTool(
      { name: 'sleep', arguments: { millis: sleepMs, progress_ms: 1000 } },
      CallToolResultSchema, opts);
    out.isError = Boolean(res.isError);
    out.text = res.content[0].text;
  } catch (e) {
    out.error = String(e.message);
    out.code = e.code;
  }
  out.ms = Date.now() - start;
  await client.close();
  return out;
}

(async () => {
  for (const withProgress of [true, false]) {
    console.log(JSON.stringify(await call(withProgress)));
  }
  // The SDK leaves timers of closed transports behind for seconds.
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
