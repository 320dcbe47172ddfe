// The upstream both proxies front in the proxy benchmarks: an official SDK v1 McpServer (1.32.2) on stdio.
// It reports on stderr, which each proxy passes through to the benchmark (mcp-proxy as it is, ours as
// `upstream: ` lines), with instants read on two clocks: the machine's monotonic clock (`process.hrtime`, the same
// clock in every process) and the wall clock as `performance.timeOrigin + performance.now()`:
//   flood {n, tag}  progress 1..n of n as fast as the SDK sends (`await` on each), then a text result;
//                   `BENCH-FLOOD <tag> <sent> <startMs> <endMs>` (monotonic) once the last update is written
//   wait {tag}      `BENCH-START <tag> <mono> <wall>` when the handler starts, then waits for its signal;
//                   `BENCH-ABORT <tag> <mono> <wall>` the instant the signal aborts (a proxy relayed the cancel).
//                   Ends by itself after 30 s so nothing waits forever.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const wallMs = () => performance.timeOrigin + performance.now();
const monoMs = () => Number(process.hrtime.bigint()) / 1e6;
const now = () => `${monoMs().toFixed(4)} ${wallMs().toFixed(4)}`;
const say = (line) => process.stderr.write(`${line}\n`);
const text = (value) => ({ content: [{ type: 'text', text: value }] });

const server = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
server.registerTool(
  'flood',
  { description: 'progress 1..n', inputSchema: { n: z.number().int(), tag: z.string() } },
  async ({ n, tag }, extra) => {
    const token = extra._meta?.progressToken;
    const start = monoMs();
    let sent = 0;
    if (token !== undefined) {
      for (let i = 1; i <= n; i++) {
        await extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken: token, progress: i, total: n },
        });
        sent++;
      }
    }
    say(`BENCH-FLOOD ${tag} ${sent} ${start.toFixed(3)} ${monoMs().toFixed(3)}`);
    return text(`flooded ${sent}`);
  },
);
server.registerTool(
  'wait',
  { description: 'waits for its cancel', inputSchema: { tag: z.string() } },
  async ({ tag }, extra) => {
    const { signal } = extra;
    await new Promise((resolve) => {
      const timer = setTimeout(resolve, 30_000);
      signal.addEventListener(
        'abort',
        () => {
          say(`BENCH-ABORT ${tag} ${now()}`);
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
      say(`BENCH-START ${tag} ${now()}`);
    });
    return text('waited');
  },
);
await server.connect(new StdioServerTransport());
// The proxy went away (or closed us): nothing else keeps this process.
process.stdin.once('end', () => process.exit(0));
