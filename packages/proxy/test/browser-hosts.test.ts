// A browser host in front of a real proxy process: its preflight allows the headers the proxy passes on
// (--pass-header) and the Mcp-Param-* headers of SEP-2243, and a refused origin or Host is told which
// proxy flag lets it in (not the library's option names).
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningProxy, startHttpServer, startProxy } from './procs.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/upstream.mjs', import.meta.url));
let upstream: Awaited<ReturnType<typeof startHttpServer>>;
let proxy: RunningProxy;

beforeAll(async () => {
  upstream = await startHttpServer(FIXTURE);
  proxy = await startProxy([
    '--upstream-http',
    upstream.url,
    '--pass-header',
    'X-Team',
    '--allowed-origins',
    'https://app.example',
  ]);
});
afterAll(async () => {
  await proxy?.kill();
  await upstream?.stop();
});

it('a preflight allows the passed headers and the Mcp-Param-* headers the page asks for', async () => {
  const preflight = await fetch(proxy.url, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://app.example',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, mcp-param-region, x-team, x-other',
    },
  });
  expect(preflight.status).toBe(204);
  const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').split(', ');
  expect(allowed).toEqual(expect.arrayContaining(['content-type', 'x-team', 'mcp-param-region']));
  expect(allowed).not.toContain('x-other');
});

it("a refused origin or Host is told the proxy's flag", async () => {
  const refused = await fetch(proxy.url, {
    method: 'POST',
    headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
    body: '{}',
  });
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
    'Forbidden: origin "https://evil.example" is not allowed; list it in --allowed-origins (loopback origins only by default)',
  );
  const url = new URL(proxy.url);
  const host = await new Promise<string>((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host: 'evil.example' },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve(body));
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
  expect(JSON.parse(host).error.message).toMatch(
    /^Forbidden: host "evil\.example" is not allowed; list its name in --allowed-hosts \(/,
  );
});
