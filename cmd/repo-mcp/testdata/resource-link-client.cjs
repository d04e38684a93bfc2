// resource-link-client.cjs follows a resource_link with the TypeScript
// SDK's client (what Claude Code and VS Code build on): over stdio, it
// reads a file with read_file under a byte budget small enough to cut it,
// takes the resource_link of the result, reads that URI with
// resources/read, and tries a denied path the same way. It prints one JSON
// line: the link, the text read, and the denied read's error.
//
//   node resource-link-client.cjs PEERS_DIR SERVER_COMMAND ARGS...
'use strict';

const [peers, command, ...args] = process.argv.slice(2);
const load = (m) => require(require.resolve(m, { paths: [peers] }));
const { Client } = load('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = load('@modelcontextprotocol/sdk/client/stdio.js');

(async () => {
  const client = new Client({ name: 'resource-link-client', version: '0' });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
  const out = { capabilities: client.getServerCapabilities() };
  const res = await client.callTool({ name: 'read_file', arguments: { workspace_id: 'fx', path: 'README.md', max_bytes: 10 } });
  out.link = res.content.find((c) => c.type === 'resource_link');
  if (out.link) {
    const read = await client.readResource({ uri: out.link.uri });
    out.text = read.contents[0].text;
    try {
      await client.readResource({ uri: out.link.uri.replace(/README\.md$/, '.env') });
      out.denied = 'served';
    } catch (e) {
      out.denied = String(e.message);
    }
  }
  await client.close();
  console.log(JSON.stringify(out));
  process.exit(0);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
