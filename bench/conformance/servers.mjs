// The three servers the conformance measurement runs against, each started as its own process on
// 127.0.0.1 port 0: examples/server, examples/proxy in front of a legacy-only SDK v1 upstream, and the
// official SDK v2 server. Each resolves to { name, url, stop() }.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const EXAMPLE_SERVER = here('../../examples/server/dist/index.js');
const PROXY = here('../../examples/proxy/dist/index.js');
const V1_UPSTREAM = here('./v1-upstream.mjs');
const SDK_V2_SERVER = here('./sdk-v2-server.mjs');

/** Spawns `node script ...args`, resolving once `matchUrl` finds a URL in a stderr line. */
function spawnListening(name, script, args, matchUrl) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const lines = [];
  return new Promise((resolve, reject) => {
    // Keep reading stderr for the whole run so a chatty log never fills the pipe.
    createInterface({ input: child.stderr }).on('line', (line) => {
      if (lines.length < 50) lines.push(line);
      const url = matchUrl(line);
      if (url) resolve({ name, url, stop });
    });
    void exited.then((code) =>
      reject(new Error(`${name} exited (${code}) before listening:\n${lines.join('\n')}`)),
    );
  });
}

const listeningOn = (line) => /listening on (http:\/\/\S+)/.exec(line)?.[1];

/** examples/server with the tools the suite calls by name, tasks served (the tasks-extension scenarios). */
export const startExampleServer = () =>
  spawnListening('examples/server', EXAMPLE_SERVER, ['--http', '0', '--conformance', '--tasks'], listeningOn);

/** examples/proxy (HTTP for hosts) in front of a legacy-only upstream on stdio. */
export const startProxy = (upstream = V1_UPSTREAM) =>
  spawnListening(
    'examples/proxy + SDK v1 upstream',
    PROXY,
    ['--http', '0', '--log', 'json', '--upstream-stdio', `'${process.execPath}' '${upstream}'`],
    (line) => {
      try {
        const event = JSON.parse(line);
        return event.type === 'listening' ? String(event.url) : undefined;
      } catch {
        return undefined;
      }
    },
  );

/** The official SDK v2 server (createMcpHandler + toNodeHandler) with the suite's tools. */
export const startSdkV2Server = () =>
  spawnListening('official SDK v2 server', SDK_V2_SERVER, [], listeningOn);
