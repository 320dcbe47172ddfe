// The host CLI: calls tools through any MCP server or proxy, draws live progress bars, cancels on Ctrl-C
// and says why each call ended. See README.md.
import { writeFileSync } from 'node:fs';
import type { McpClient } from '@mcp-inflight/client';
import { systemClock } from '@mcp-inflight/core';
import { type HostOptions, parseHostArgs, USAGE } from './args.js';
import { connectHost, targetLabel } from './connect.js';
import { Display } from './display.js';
import { describeOutcome, outcomeOfError } from './outcome.js';
import { exitCodeFor, toReport } from './report.js';
import { runCalls } from './runner.js';
import { tallyWire } from './wire-tally.js';

let options: HostOptions;
try {
  if (process.argv.includes('--help')) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  options = parseHostArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`host: ${(error as Error).message}\n\n${USAGE}`);
  process.exit(2);
}

let client: McpClient;
try {
  client = await connectHost(options);
} catch (error) {
  process.stderr.write(`host: could not connect: ${(error as Error).message}\n`);
  process.exit(1);
}

if (options.list) {
  let listed: { tools?: Array<{ name: string; description?: string }> };
  try {
    listed = (await client.request('tools/list', {}, {})) as typeof listed;
  } catch (error) {
    // One sentence, as for a failed call: a server with no tools answers -32601, which is no crash.
    process.stderr.write(`host: could not list tools: ${describeOutcome(outcomeOfError(error))}\n`);
    await client.close().catch(() => undefined);
    process.exit(1);
  }
  for (const tool of listed.tools ?? [])
    process.stdout.write(`${tool.name}${tool.description ? `  ${tool.description}` : ''}\n`);
  await client.close();
  process.exit(0);
}

const plural = options.calls.length === 1 ? 'call' : 'calls';
process.stdout.write(
  `host: ${options.calls.length} ${plural} to ${targetLabel(options.target)} (${client.revision ?? 'unknown revision'}); Ctrl-C cancels\n`,
);
// Only a report reads the endpoint's events; without --report nothing subscribes and nothing is emitted.
const wire = options.reportPath ? tallyWire(client.endpoint) : undefined;
let display: Display | undefined;
const running = runCalls(client, options.calls, {
  idleMs: options.idleMs,
  ceilingMs: options.ceilingMs,
  onUpdate: (view) => display?.update(view),
  onEnd: (view) => display?.end(view),
});
display = new Display(running.views, process.stdout, systemClock);

let interrupted = false;
process.on('SIGINT', () => {
  if (interrupted) process.exit(130); // a second Ctrl-C: quit now
  interrupted = true;
  const n = running.cancelAll('you pressed Ctrl-C');
  display?.note(`host: Ctrl-C: cancelling ${n} ${n === 1 ? 'call' : 'calls'} (press again to quit at once)`);
});

const views = await running.done;
display.finish();
if (options.reportPath)
  writeFileSync(
    options.reportPath,
    `${JSON.stringify(toReport(targetLabel(options.target), client.revision, views, wire), null, 2)}\n`,
  );
await client.close().catch(() => undefined);
process.exit(exitCodeFor(views));
