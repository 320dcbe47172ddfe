// The command line's parsing, without a process: --allowed-origins in particular (examples/web relies on it).
import { expect, it } from 'vitest';
import { parseServerArgs } from '../src/args.js';

it('--allowed-origins takes a comma-separated list of origins', () => {
  expect(parseServerArgs(['--http', '0']).allowedOrigins).toBeUndefined(); // the adapter's loopback default
  expect(
    parseServerArgs(['--allowed-origins', 'http://127.0.0.1:8080, https://app.example']).allowedOrigins,
  ).toEqual(['http://127.0.0.1:8080', 'https://app.example']);
  expect(parseServerArgs(['--allowed-origins', '*']).allowedOrigins).toBe('*');
});

it('--allowed-origins refuses what is not an origin', () => {
  expect(() => parseServerArgs(['--allowed-origins'])).toThrow(
    "Option '--allowed-origins <value>' argument missing",
  );
  expect(() => parseServerArgs(['--allowed-origins', ' , '])).toThrow(/comma-separated list of origins/);
  expect(() => parseServerArgs(['--allowed-origins', 'http://127.0.0.1:8080/page'])).toThrow(
    /"http:\/\/127.0.0.1:8080\/page" is not an origin/,
  );
  expect(() => parseServerArgs(['--allowed-origins', '127.0.0.1:8080'])).toThrow(/is not an origin/);
});

it('--redis takes a redis:// URL and needs --tasks; --request-state-secret-file takes a path', () => {
  expect(parseServerArgs(['--tasks', '--redis', 'redis://127.0.0.1:6379']).redisUrl).toBe(
    'redis://127.0.0.1:6379',
  );
  expect(() => parseServerArgs(['--redis', 'redis://127.0.0.1:6379'])).toThrow(
    '--redis keeps tasks: it needs --tasks',
  );
  expect(() => parseServerArgs(['--tasks', '--redis', '127.0.0.1:6379'])).toThrow(
    '--redis takes a redis:// or rediss:// URL, not "127.0.0.1:6379"',
  );
  expect(parseServerArgs(['--request-state-secret-file', '/run/secrets/k']).requestStateSecretFile).toBe(
    '/run/secrets/k',
  );
  expect(parseServerArgs([]).redisUrl).toBeUndefined();
});
