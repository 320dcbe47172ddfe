// `pnpm demo`: host -> proxy -> server on this machine, four calls at once, then what each leg saw.
// See README.md.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingLegs, type ProxyLeg, runHost, startProxy } from './legs.js';
import { DEMO_CALLS, DEMO_ERAS, DEMO_LIMITS, hostCallArgs } from './scenario.js';
import { readServerStatus } from './status.js';
import { type HostCallFacts, summarize } from './summary.js';

const out = (line = ''): void => void process.stdout.write(`${line}\n`);
const startedAt = Date.now();
let interrupted = false;
// Ctrl-C reaches the host too, which cancels its calls; the demo carries on to show what that did.
process.on('SIGINT', () => {
  interrupted = true;
});

// A leg that is not built, or a proxy that will not start, is one line and a way out, not a stack trace.
function fail(why: string): never {
  process.stderr.write(`demo: ${why}\n`);
  process.exit(1);
}
const missing = missingLegs();
if (missing.length > 0)
  fail(
    `${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing: run \`pnpm build\` at the repository root first`,
  );

out('mcp-inflight demo: host -> proxy -> server, all on this machine');
out(`  server  examples/server, spawned by the proxy, speaking ${DEMO_ERAS.upstream} over stdio`);
out(
  `  proxy   @mcp-inflight/proxy (mcp-inflight-proxy), idle limit ${DEMO_LIMITS.idleMs} ms and ceiling ${DEMO_LIMITS.ceilingMs} ms on every call`,
);
out(`  host    examples/host, speaking ${DEMO_ERAS.host} over Streamable HTTP, four calls at once:`);
for (const call of DEMO_CALLS) out(`          ${call.label.padEnd(10)}${call.story}`);
out();

let proxy: ProxyLeg;
try {
  proxy = await startProxy([
    '--upstream-revision',
    DEMO_ERAS.upstream,
    '--idle-timeout',
    String(DEMO_LIMITS.idleMs),
    '--max-timeout',
    String(DEMO_LIMITS.ceilingMs),
  ]);
} catch (error) {
  fail(
    `${(error as Error).message} (if the examples are out of date, run \`pnpm build\` at the repository root)`,
  );
}
const dir = mkdtempSync(join(tmpdir(), 'mcp-inflight-demo-'));
let exitCode = 1;
try {
  const reportPath = join(dir, 'host-report.json');
  await runHost([
    '--http',
    proxy.url,
    '--revision',
    DEMO_ERAS.host,
    ...hostCallArgs(DEMO_CALLS),
    '--report',
    reportPath,
  ]);
  const host = (JSON.parse(readFileSync(reportPath, 'utf8')) as { calls: HostCallFacts[] }).calls;
  const server = await readServerStatus(proxy.url);
  const proxyExit = await proxy.stop();
  const { lines, problems } = summarize({ host, proxy: proxy.calls, server }, DEMO_CALLS);
  out();
  out('What each leg saw');
  for (const line of lines) out(`  ${line}`);
  out();
  if (proxyExit !== 0) problems.push(`proxy: exited with code ${proxyExit} after SIGTERM, expected 0`);
  if (problems.length === 0) {
    out(
      `Every leg agrees: one call finished, one was cancelled by the user, one hit the idle limit, one the ceiling;`,
    );
    out(
      `each early end was cancelled on the server, which counted it. Done in ${((Date.now() - startedAt) / 1000).toFixed(1)} s.`,
    );
    exitCode = 0;
  } else {
    out(
      interrupted ? 'You pressed Ctrl-C, so the calls did not go to plan:' : 'Something did not go to plan:',
    );
    for (const problem of problems) out(`  - ${problem}`);
    if (proxy.otherLines.length) out(`proxy stderr:\n${proxy.otherLines.join('\n')}`);
    exitCode = interrupted ? 130 : 1;
  }
} catch (error) {
  out(`demo failed: ${(error as Error).message}`);
  if (proxy.otherLines.length) out(`proxy stderr:\n${proxy.otherLines.join('\n')}`);
  await proxy.stop();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
process.exit(exitCode);
