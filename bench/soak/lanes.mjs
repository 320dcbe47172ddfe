// The hosts of the soak. A lane is one host connection with its own quota of calls, its own workers and
// its own schedule of disturbances (upstream kills, host drops); the calls it makes are planned from the
// seed alone (plan.mjs), and every ending is judged and counted once.
import { createServer, connect as tcpConnect } from 'node:net';
import { judge, outcomeOf, planCall } from './plan.mjs';
import { HTTP_DIST, proxyCommandLine, STDIO_DIST, sleep, spawnHttpProxy } from './procs.mjs';
import { mix, rng } from './rng.mjs';

const { spawnStdio } = await import(STDIO_DIST);
const { HttpClient } = await import(HTTP_DIST);

const CLIENT_INFO = { name: 'mcp-inflight-soak', version: '0.1.0' };
const STATS_LIMITS = { idleMs: 30_000, ceilingMs: 60_000 };
/** How long after a kill or a drop a call that starts is still taken as exposed to it. */
const AFTERMATH_MS = 300;
const noop = () => {};

/**
 * Windows in which a disturbance (a kill, a drop) is under way. A call is exposed when a window opened
 * during its life, or was open when it started or ended.
 */
export class Disturbance {
  started = 0;
  ended = 0;
  get open() {
    return this.started !== this.ended;
  }
  /** Opens a window; the returned function closes it `AFTERMATH_MS` later. */
  begin() {
    this.started++;
    return () =>
      setTimeout(() => {
        this.ended++;
      }, AFTERMATH_MS);
  }
}

/** Marks of the disturbances at a call's start, to judge its exposure at the end. */
function mark(d) {
  return { started: d.started, open: d.open };
}
function exposed(d, at) {
  return at.open || d.open || d.started !== at.started;
}

/**
 * The live upstream's pid, through the proxy's stats request. Right after a kill the proxy may still hold
 * the dead connection for a moment (until it has read the exit), so a failed answer is asked again.
 */
async function upstreamPid(source, name) {
  let error;
  for (let attempt = 0; attempt < 100; attempt++) {
    const { upstream } = await source.stats({ upstream: true });
    if (upstream.stats?.pid) return upstream.stats.pid;
    error = upstream.error;
    await sleep(50);
  }
  throw new Error(`${name}: no upstream pid to kill (${error})`);
}

/** SIGKILLs `pid`; one already gone (another host's kill of the shared upstream got there first) is fine. */
function sigkill(pid) {
  try {
    process.kill(pid, 'SIGKILL');
  } catch (error) {
    if (error.code !== 'ESRCH') throw error;
  }
}

/** One call: plan it, run it on `client`, judge and count its one ending. */
async function runCall(lane, index) {
  const plan = planCall(lane.seed, lane.id, index);
  const client = await lane.host();
  const kill = mark(lane.kills);
  const drop = mark(lane.drops);
  const stop = plan.cancelAfterMs === undefined ? undefined : new AbortController();
  const timer = stop && setTimeout(() => stop.abort(), plan.cancelAfterMs);
  let error;
  try {
    await client.request(
      'tools/call',
      { name: 'work', arguments: plan.args },
      {
        idleMs: plan.idleMs,
        ceilingMs: plan.ceilingMs,
        ...(stop ? { signal: stop.signal } : {}),
        ...(plan.progress ? { onprogress: noop } : {}),
      },
    );
  } catch (caught) {
    error = caught ?? new Error('rejected with nothing');
  }
  if (timer) clearTimeout(timer);
  const outcome = outcomeOf(error);
  const exposure = { kill: exposed(lane.kills, kill), drop: exposed(lane.drops, drop) };
  lane.tally.add(lane, plan, outcome, exposure, judge(plan, outcome, exposure));
}

/**
 * Positions (lane call indices) of `count` disturbances spread over [from, to), from the lane's own
 * stream of the seed.
 */
function schedule(seed, laneId, salt, from, to, count) {
  const at = new Map();
  if (count <= 0 || to <= from) return at;
  const random = rng(mix(seed, laneId, salt));
  const gap = (to - from) / (count + 1);
  for (let k = 1; k <= count; k++) at.set(Math.floor(from + k * gap + (random() - 0.5) * gap * 0.8), true);
  return at;
}

class Lane {
  constructor(options) {
    Object.assign(this, options);
    this.kills ??= new Disturbance();
    this.drops = new Disturbance();
    this.events = new Map();
    this.done = 0;
  }

  /** Plans the disturbances of the main phase (after the warm-up). */
  planEvents(from) {
    for (const [i] of schedule(this.seed, this.id, 1, from, this.quota, this.killCount ?? 0))
      this.events.set(i, 'kill');
    for (const [i] of schedule(this.seed, this.id, 2, from, this.quota, this.dropCount ?? 0))
      this.events.set(i, 'drop');
  }

  /** Runs calls [from, to) on `concurrency` workers; disturbances fire when their index comes up. */
  async run(from, to) {
    let next = from;
    const worker = async () => {
      while (next < to) {
        const index = next++;
        const event = this.events.get(index);
        if (event) {
          this.events.delete(index);
          await this[event]();
        }
        await runCall(this, index);
        this.done++;
      }
    };
    await Promise.all(Array.from({ length: this.concurrency }, worker));
  }
}

/** A host on stdio: it spawns its own proxy (which spawns its upstream), as a stdio host does. */
export class StdioLane extends Lane {
  incarnation = 0;
  /** Every proxy and upstream pid this lane has seen, for the check that none outlives the soak. */
  pids = new Set();
  background = [];

  async start() {
    this.current = this.#spawn();
    await this.current;
  }

  host() {
    return this.current;
  }

  get revision() {
    return this.revisions[this.incarnation % this.revisions.length];
  }

  async #spawn() {
    const client = spawnStdio(proxyCommandLine({ upstreamRevision: this.upstreamRevision }), {
      stderr: 'inherit',
      clientInfo: CLIENT_INFO,
      idleMs: 30_000,
      ceilingMs: 60_000,
    });
    this.client = client;
    this.pids.add(client.child.pid);
    await client.connect({ revision: this.revision });
    return client;
  }

  async stats(params) {
    const client = await this.current;
    const stats = await client.request('inflight/stats', params, STATS_LIMITS);
    this.pids.add(stats.pid);
    if (stats.upstream?.stats?.pid) this.pids.add(stats.upstream.stats.pid);
    return stats;
  }

  /** SIGKILLs the upstream; the proxy fails its calls with UPSTREAM_CLOSED and starts a fresh one. */
  async kill() {
    const pid = await upstreamPid(this, this.name);
    const end = this.kills.begin();
    sigkill(pid);
    this.killed = (this.killed ?? 0) + 1;
    end();
  }

  /**
   * The host goes away mid-call: its pipe to the proxy is destroyed, with no goodbye. The proxy must
   * cancel what it relays, close its upstream and exit; a fresh proxy serves the lane's next calls.
   */
  async drop() {
    const pid = await upstreamPid(this, this.name);
    const old = this.client;
    const end = this.drops.begin();
    old.child.stdin.destroy();
    this.dropped = (this.dropped ?? 0) + 1;
    this.incarnation++;
    this.current = this.#spawn();
    this.current.catch(() => {}); // a failed start is reported by the workers that wait for it
    this.background.push(this.#reap(old, pid));
    await this.current;
    end();
  }

  async #reap(old, upstreamPid) {
    let timer;
    const hung = new Promise((resolve) => {
      timer = setTimeout(resolve, 15_000);
    });
    const exit = await Promise.race([old.exited, hung]);
    clearTimeout(timer);
    await old.close().catch(() => {});
    this.reaped ??= [];
    this.reaped.push({ proxyPid: old.child.pid, upstreamPid, exit });
  }

  async close() {
    await Promise.all(this.background);
    const client = await this.current;
    await client.close();
  }
}

/**
 * A TCP relay in front of the HTTP proxy for one host, so the host's connections can be dropped as a
 * network does: every socket destroyed at once, no goodbye on either side.
 */
async function forwarder(port) {
  const pairs = new Set();
  const server = createServer((down) => {
    const up = tcpConnect(port, '127.0.0.1');
    const pair = { down, up };
    pairs.add(pair);
    down.setNoDelay(true);
    up.setNoDelay(true);
    down.pipe(up);
    up.pipe(down);
    const end = () => {
      if (!pairs.delete(pair)) return;
      down.destroy();
      up.destroy();
    };
    for (const socket of [down, up]) {
      socket.on('close', end);
      socket.on('error', end);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    get sockets() {
      return pairs.size;
    },
    drop() {
      for (const { down, up } of [...pairs]) {
        down.resetAndDestroy();
        up.resetAndDestroy();
      }
    },
    close() {
      for (const { down, up } of [...pairs]) {
        down.destroy();
        up.destroy();
      }
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The one HTTP proxy all HTTP hosts share, and a 2026-07-28 client that asks it for stats. */
export class HttpProxy {
  kills = new Disturbance();
  pids = new Set();
  killed = 0;

  async start(port) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}/mcp`;
    this.process = spawnHttpProxy(port);
    this.pids.add(this.process.child.pid);
    for (let attempt = 0; ; attempt++) {
      const client = new HttpClient({ url: this.url, revision: '2026-07-28', clientInfo: CLIENT_INFO });
      try {
        await client.connect();
        this.statsClient = client;
        // What a fresh proxy shows while it answers a stats request over HTTP: that request's own response
        // stream holds a keep-alive timer. The end of the soak must come back to exactly this.
        this.freshTimers = (await this.stats({})).timers;
        return;
      } catch (error) {
        await client.close().catch(() => {});
        if (attempt > 100) throw error;
        await sleep(50);
      }
    }
  }

  async stats(params) {
    const stats = await this.statsClient.request('inflight/stats', params, STATS_LIMITS);
    this.pids.add(stats.pid);
    if (stats.upstream?.stats?.pid) this.pids.add(stats.upstream.stats.pid);
    return stats;
  }

  async kill() {
    const pid = await upstreamPid(this, 'http proxy');
    const end = this.kills.begin();
    sigkill(pid);
    this.killed++;
    end();
  }

  async stop() {
    await this.statsClient.close().catch(() => {});
    this.process.child.kill('SIGTERM');
    return this.process.exited;
  }
}

/** A host on HTTP, through its own droppable TCP relay to the shared proxy. */
export class HttpLane extends Lane {
  async start() {
    this.progressRelay = await forwarder(this.proxy.port);
    this.client = new HttpClient({
      url: this.progressRelay.url,
      revision: this.revision,
      clientInfo: CLIENT_INFO,
      idleMs: 30_000,
      ceilingMs: 60_000,
    });
    await this.client.connect();
  }

  get pids() {
    return this.proxy.pids;
  }

  async host() {
    return this.client;
  }

  kill() {
    return this.proxy.kill();
  }

  /** Every connection of this host is reset at once, mid-call; the host carries on with new ones. */
  async drop() {
    const end = this.drops.begin();
    this.progressRelay.drop();
    this.dropped = (this.dropped ?? 0) + 1;
    end();
  }

  async close() {
    await this.client.close().catch(() => {});
    await this.progressRelay.close();
  }
}
