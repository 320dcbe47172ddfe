// What .ci/runtime-e2e.mjs (examples/server and the proxy bin on node, bun, deno) and .ci/workerd-e2e.mjs
// (examples/worker on workerd) check the same way: loading a package's root entry, the pass/fail tally,
// the `status` tool's counts, and the steps of a scenario both run (connect, a call with progress, a cancel
// after 2 progress updates, a timed call that ends in an error code, close). Each script keeps how its
// servers start, which scenarios run, and the checks only it makes.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The ESM root entry of `name` as installed for the package in `dir` (its export map, no resolver conditions). */
export async function load(dir, name) {
  const manifest = createRequire(join(dir, 'package.json')).resolve(`${name}/package.json`);
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8'));
  return import(pathToFileURL(join(dirname(manifest), exports['.'].import.default)).href);
}

/**
 * The checks, counted: `InflightError` is the class from the caller's copy of @mcp-inflight/core (an error's
 * code is read only from one of those), `ceilingMs` the handler ceiling the server under test runs with.
 */
export function createChecks({ InflightError, ceilingMs }) {
  let passed = 0;
  let failed = 0;
  function check(name, ok, detail = '') {
    if (ok) passed++;
    else failed++;
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
  }
  const codeOf = (error) => (InflightError.is(error) ? error.code : String(error?.message ?? error));

  /** 'completed', or the code of the error the call rejected with. */
  const settle = (call) =>
    call.then(
      () => 'completed',
      (e) => codeOf(e),
    );

  /** How the call `call()` makes settled (see settle), when it started and how long it took, in ms. */
  async function timed(call) {
    const start = Date.now();
    const code = await settle(call());
    return { code, start, ms: Date.now() - start };
  }

  /** Whether a call ended with CEILING after the ceiling, at most `slackMs` late. */
  const hitCeiling = ({ code, ms }, slackMs) =>
    code === 'CEILING' && ms >= ceilingMs - 100 && ms < ceilingMs + slackMs;

  async function status(client) {
    const result = await client.callTool('status', {});
    return JSON.parse(result.content[0].text);
  }

  /** The server's counts once `ready` holds for them, or after 2 s (then the check reads what they are). */
  async function statusWhen(client, ready) {
    let counts = await status(client);
    for (let i = 0; i < 100 && !ready(counts); i++) {
      await new Promise((r) => setTimeout(r, 20));
      counts = await status(client);
    }
    return counts;
  }

  /** `work` with `args`: the progress notifications it sent, in order, and its result. */
  async function workWithProgress(client, args) {
    const updates = [];
    const done = await client.callTool('work', args, { onprogress: (p) => updates.push(p) });
    return { updates, done };
  }

  /** A `work` call the client cancels on its 2nd progress update: it rejects CANCELLED after exactly 2. */
  async function cancelAfterTwoUpdates(client, label) {
    const abort = new AbortController();
    let updates = 0;
    const cancelled = await settle(
      client.callTool(
        'work',
        { steps: 20, intervalMs: 50 },
        { signal: abort.signal, onprogress: () => ++updates === 2 && abort.abort() },
      ),
    );
    check(
      label('cancel after 2 updates rejects CANCELLED'),
      cancelled === 'CANCELLED' && updates === 2,
      `${cancelled} after ${updates}`,
    );
  }

  /**
   * One scenario on a client that `open()` makes (fresh per scenario): connect, then `steps(client)`, then
   * close; anything thrown fails "ran to the end". `stop()` runs last whatever happened.
   */
  async function scenario(label, open, steps, stop = async () => {}) {
    let client;
    try {
      client = await open();
      const handshake = await client.connect();
      check(label('connect'), Boolean(handshake), client.revision);

      await steps(client);

      await client.close();
      await client.closed;
      check(label('close'), true);
    } catch (error) {
      check(label('ran to the end'), false, error?.stack ?? String(error));
      await client?.close().catch(() => {});
    } finally {
      await stop();
    }
  }

  return {
    check,
    settle,
    timed,
    hitCeiling,
    status,
    statusWhen,
    workWithProgress,
    cancelAfterTwoUpdates,
    scenario,
    summary: () => `${passed} passed, ${failed} failed`,
    failed: () => failed,
  };
}
