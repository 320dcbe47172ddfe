import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NO_CACHING } from '@mcp-inflight/client';
import { describe, expect, it } from 'vitest';
import { type CallEvent, countCall, emptyStats, formatEvent } from '../src/events.js';
import { USAGE } from '../src/flags.js';
import { parseProxyArgs } from '../src/options.js';
import { capabilitiesForHosts, resultForHost } from '../src/relayed-methods.js';

describe('parseProxyArgs', () => {
  it('has the documented defaults', () => {
    expect(parseProxyArgs(['--upstream-stdio', 'node "my server.js"'])).toEqual({
      upstream: { kind: 'stdio', commandLine: 'node "my server.js"', revision: 'auto' },
      listen: { kind: 'stdio' },
      host: '127.0.0.1',
      path: '/mcp',
      idleMs: 60_000,
      ceilingMs: 600_000,
      log: 'text',
      logArguments: false,
      maxSessions: 1_000,
      sessionIdleMs: 300_000,
      inputHoldMs: 300_000,
      headers: {},
      passHeaders: [],
      connectTimeoutMs: 30_000,
      drainMs: 10_000,
      maxInFlight: 1_000,
      maxHostInFlight: 100,
      maxClientSessions: 100,
      maxAddressClients: 16,
      maxConnections: 4_096,
      maxIdleConnectionsPerAddress: 256,
    });
  });

  it('reads every flag', () => {
    const options = parseProxyArgs([
      '--upstream-http',
      'http://127.0.0.1:9/mcp',
      '--upstream-revision',
      '2026-07-28',
      '--http',
      '0',
      '--idle-timeout',
      '800',
      '--max-timeout',
      '3000',
      '--log',
      'json',
      '--max-sessions',
      '5',
      '--session-idle',
      '9000',
      '--input-timeout',
      '7000',
      '--max-address-clients',
      '3',
    ]);
    expect(options).toEqual({
      upstream: { kind: 'http', url: 'http://127.0.0.1:9/mcp', revision: '2026-07-28' },
      listen: { kind: 'http', port: 0 },
      host: '127.0.0.1',
      path: '/mcp',
      idleMs: 800,
      ceilingMs: 3_000,
      log: 'json',
      logArguments: false,
      maxSessions: 5,
      sessionIdleMs: 9_000,
      inputHoldMs: 7_000,
      headers: {},
      passHeaders: [],
      connectTimeoutMs: 30_000,
      drainMs: 10_000,
      maxInFlight: 1_000,
      maxHostInFlight: 100,
      maxClientSessions: 100,
      maxAddressClients: 3,
      maxConnections: 4_096,
      maxIdleConnectionsPerAddress: 256,
    });
  });

  it('reads --progress-interval, 0 included (every value), and leaves it out when not given', () => {
    const at = (value: string) =>
      parseProxyArgs(['--upstream-stdio', 'a', `--progress-interval=${value}`]).minIntervalMs;
    expect(at('0')).toBe(0);
    expect(at('250')).toBe(250);
    expect('minIntervalMs' in parseProxyArgs(['--upstream-stdio', 'a'])).toBe(false);
    expect(() => at('-1')).toThrow('--progress-interval takes a whole number from 0');
    expect(() => at('fast')).toThrow('--progress-interval');
  });

  it('says what is wrong', () => {
    expect(() => parseProxyArgs([])).toThrow('exactly one of --upstream-stdio and --upstream-http');
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--upstream-http', 'http://x'])).toThrow(
      'exactly one',
    );
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--idle-timeout', '0'])).toThrow(
      '--idle-timeout takes a whole number from 1',
    );
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--http', '70000'])).toThrow(
      '--http takes a whole number from 0 to 65535',
    );
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--max-timeout', '1.5'])).toThrow('--max-timeout');
    expect(() => parseProxyArgs(['--upstream-http', 'localhost:3000'])).toThrow('http(s) URL');
    expect(() => parseProxyArgs(['--upstream-stdio'])).toThrow(
      "Option '--upstream-stdio <value>' argument missing",
    );
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--bogus'])).toThrow("Unknown option '--bogus'");
  });

  it('reads the listener, header, auth and drain flags', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-options-'));
    const tokens = join(dir, 'tokens');
    writeFileSync(tokens, '# hosts\nalpha\n\nbeta\n');
    const options = parseProxyArgs(
      [
        '--upstream-http',
        'http://127.0.0.1:9/mcp',
        '--host',
        '0.0.0.0',
        '--path',
        '/rpc',
        '--allowed-origins',
        'https://app.example, https://b.example',
        '--allowed-hosts',
        '*',
        '--header',
        'Authorization: Bearer up',
        '--header',
        'X-Team: blue',
        '--header-from-env',
        'X-Key: KEY_VAR',
        '--auth-token-file',
        tokens,
        '--connect-timeout',
        '4000',
        '--admin-port',
        '0',
        '--drain-timeout',
        '0',
        '--log-arguments',
        '--max-in-flight',
        '200',
        '--max-host-in-flight',
        '50',
        '--max-client-sessions',
        '5',
        '--max-connections',
        '64',
        '--max-idle-connections-per-address',
        '32',
      ],
      { KEY_VAR: 'k1' },
    );
    expect(options).toMatchObject({
      host: '0.0.0.0',
      path: '/rpc',
      allowedOrigins: ['https://app.example', 'https://b.example'],
      allowedHosts: '*',
      headers: { Authorization: 'Bearer up', 'X-Team': 'blue', 'X-Key': 'k1' },
      authTokens: ['alpha', 'beta'],
      connectTimeoutMs: 4_000,
      adminPort: 0,
      drainMs: 0,
      logArguments: true,
      maxInFlight: 200,
      maxHostInFlight: 50,
      maxClientSessions: 5,
      maxConnections: 64,
      maxIdleConnectionsPerAddress: 32,
    });
  });

  it('refuses a malformed header, a missing env variable, an unreadable token file', () => {
    const http = ['--upstream-http', 'http://127.0.0.1:9/mcp'];
    expect(() => parseProxyArgs([...http, '--header', 'no colon'])).toThrow('--header takes "Name: value"');
    expect(() => parseProxyArgs([...http, '--header', 'Bad Name: v'])).toThrow('--header takes');
    expect(() => parseProxyArgs([...http, '--header-from-env', 'X: NOPE'], {})).toThrow(
      'env NOPE is not set',
    );
    expect(() => parseProxyArgs([...http, '--auth-token-file', '/nonexistent/t'])).toThrow(
      '--auth-token-file: cannot read /nonexistent/t: ENOENT',
    );
    expect(() => parseProxyArgs(['--upstream-stdio', 'a', '--header', 'A: b'])).toThrow(
      'need an HTTP upstream',
    );
    expect(() => parseProxyArgs([...http, '--path', 'mcp'])).toThrow('--path must start with /');
  });

  it('--auth-token-file refuses a line no Authorization header can match, naming the line, never the token', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-tokens-'));
    const http = ['--upstream-http', 'http://127.0.0.1:9/mcp'];
    const refusal = (text: string) => {
      const file = join(dir, `t${text.length}`);
      writeFileSync(file, text);
      try {
        parseProxyArgs([...http, '--auth-token-file', file]);
      } catch (error) {
        return (error as Error).message.replace(file, 'FILE');
      }
      return 'accepted';
    };
    expect(refusal('# hosts\nalpha\nbeta-secret # for host b\n')).toBe(
      '--auth-token-file: line 3 of FILE holds a space, so no Authorization header can match it; a token is one word of visible ASCII, and a comment is a line of its own starting with #',
    );
    expect(refusal('alpha\ntwo words\n')).toMatch(/^--auth-token-file: line 2 of FILE holds a space,/);
    expect(refusal('caf\u00e9-token\n')).toMatch(/line 1 of FILE holds a character other than visible ASCII/);
    expect(refusal('# only a comment\n')).toMatch(/holds no token$/);
    // Around a token, blank space is not part of it; a BOM and CRLF line ends are read through.
    expect(refusal('\uFEFF  alpha  \r\n\tbeta\r\n')).toBe('accepted');
  });

  it('--request-state-secret-file reads the shared secret (newline dropped) and refuses a short or missing one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-secret-'));
    const good = join(dir, 'key');
    writeFileSync(good, `${'k'.repeat(32)}\n`);
    const short = join(dir, 'short');
    writeFileSync(short, 'short\n');
    const base = ['--upstream-stdio', 'node s.js'];
    const secret = parseProxyArgs([...base, '--request-state-secret-file', good]).requestStateSecret;
    expect(secret && Buffer.from(secret).toString()).toBe('k'.repeat(32));
    expect(parseProxyArgs(base).requestStateSecret).toBeUndefined();
    expect(() => parseProxyArgs([...base, '--request-state-secret-file', short])).toThrow(
      `--request-state-secret-file: ${short} holds 5 bytes; the secret must be at least 32`,
    );
    expect(() => parseProxyArgs([...base, '--request-state-secret-file', join(dir, 'none')])).toThrow(
      /--request-state-secret-file: cannot read .*none: ENOENT/,
    );
  });

  it('--help lists every flag with its default', () => {
    for (const flag of [
      '--host',
      '--path',
      '--header',
      '--auth-token-file',
      '--connect-timeout',
      '--drain-timeout',
    ])
      expect(USAGE).toContain(flag);
    expect(USAGE).toContain('(default 127.0.0.1)');
    expect(USAGE).toContain('(default 10000)');
    // A flag longer than the column still has a space before its help.
    expect(USAGE).toContain('  --max-idle-connections-per-address N  HTTP: connections from one address');
    expect(USAGE).toContain('  --request-state-secret-file FILE  sign the requestState');
  });
});

describe('relay helpers', () => {
  it('gives legacy hosts results without resultType, and modern hosts results as they are', () => {
    expect(
      resultForHost({ resultType: 'complete', content: [] }, '2024-11-05', 'tools/call', NO_CACHING),
    ).toEqual({
      content: [],
    });
    const r = { resultType: 'complete', content: [] };
    expect(resultForHost(r, '2026-07-28', 'tools/call', NO_CACHING)).toBe(r);
    const inputRequired = { resultType: 'input_required' };
    expect(resultForHost(inputRequired, '2025-06-18', 'tools/call', NO_CACHING)).toBe(inputRequired);
  });

  it('fills the caching hints 2026-07-28 requires on a cacheable result from a legacy upstream [CA1]', () => {
    expect(resultForHost({ tools: [] }, '2026-07-28', 'tools/list', NO_CACHING)).toEqual({
      tools: [],
      ttlMs: 0,
      cacheScope: 'private',
    });
    const hinted = { tools: [], ttlMs: 60_000, cacheScope: 'public' };
    expect(resultForHost(hinted, '2026-07-28', 'tools/list', NO_CACHING)).toEqual(hinted); // the upstream's own win
    const configured = { ttlMs: 5_000, cacheScope: 'public' } as const;
    expect(resultForHost({ resources: [] }, '2026-07-28', 'resources/list', configured)).toMatchObject(
      configured,
    );
    expect(resultForHost({ tools: [] }, '2025-11-25', 'tools/list', NO_CACHING)).toEqual({ tools: [] });
  });

  it('offers hosts only what one shared upstream can carry', () => {
    expect(
      capabilitiesForHosts({
        tools: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        prompts: {},
        logging: {},
        tasks: { list: {} },
        completions: {},
      }),
    ).toEqual({
      tools: { listChanged: true }, // relayed: the proxy listens upstream and publishes to its hosts
      resources: { listChanged: true }, // but not per-host resource subscriptions
      prompts: {},
      completions: {},
    });
  });
});

describe('events', () => {
  it('formats a call and counts it', () => {
    const event: CallEvent = {
      type: 'call',
      host: 'http request',
      hostRevision: '2026-07-28',
      id: 4,
      method: 'tools/call',
      name: 'work',
      arguments: { steps: 2, intervalMs: 5000, tag: 'silent' },
      outcome: 'cancelled',
      cause: 'IDLE_TIMEOUT',
      message: 'IDLE_TIMEOUT: idle limit of 800 ms passed with no progress (0 updates before)',
      progressIn: 0,
      progressOut: 0,
      ms: 801.4,
    };
    expect(formatEvent(event)).toBe(
      'proxy: tools/call work {"steps":2,"intervalMs":5000,"tag":"silent"} [http request, 2026-07-28, id 4] cancelled upstream (IDLE_TIMEOUT): IDLE_TIMEOUT: idle limit of 800 ms passed with no progress (0 updates before); 0 progress in, 0 out; 801 ms',
    );
    const stats = emptyStats();
    countCall(stats, event);
    countCall(stats, { ...event, outcome: 'completed', progressIn: 3, progressOut: 2 });
    expect(stats).toMatchObject({
      completed: 1,
      cancelled: { IDLE_TIMEOUT: 1 },
      progressIn: 3,
      progressOut: 2,
    });
    expect(formatEvent({ type: 'stats', stats: { ...stats, calls: 2 } })).toBe(
      'proxy: 2 calls relayed: 1 completed, 0 upstream errors, 0 upstream closed, cancelled upstream: IDLE_TIMEOUT 1; 3 progress in, 2 out',
    );
  });
});
