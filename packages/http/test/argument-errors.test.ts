// Set-up mistakes in the public entry points throw where they are made, as a TypeError or RangeError that
// names the accepted forms, instead of failing later (or never) with a message about something else.
import { serveLifecycle } from '@mcp-inflight/core';
import { defineTool, serveTools } from '@mcp-inflight/server';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createHttpHandler, HttpClient, type HttpServerOptions } from '../src/index.js';

const handler = (options: unknown) => () => createHttpHandler(() => {}, options as HttpServerOptions);

describe('HttpClient url', () => {
  it.each([
    [undefined, 'got undefined'],
    ['/mcp', 'got "/mcp"'],
    ['127.0.0.1:3000/mcp', 'got "127.0.0.1:3000/mcp"'],
    ['ws://127.0.0.1:3000/mcp', 'got "ws://127.0.0.1:3000/mcp"'],
  ])('%j (outside a page) throws naming an http(s) URL', (url, got) => {
    const make = () => new HttpClient({ url } as unknown as ConstructorParameters<typeof HttpClient>[0]);
    expect(make).toThrow(TypeError);
    expect(make).toThrow(
      `HttpClient: url must be the server's MCP endpoint, an http(s) URL (string or URL) such as 'http://127.0.0.1:3000/mcp' (relative only in a page), ${got}`,
    );
  });

  it('a string or a URL passes', async () => {
    await new HttpClient({ url: 'http://127.0.0.1:1/mcp' }).close();
    await new HttpClient({ url: new URL('https://mcp.example/mcp') }).close();
  });
});

describe('createHttpHandler options', () => {
  it('allowedOrigins as one string, or an origin with a path, names the accepted form', () => {
    expect(handler({ allowedOrigins: 'https://app.example' })).toThrow(
      `allowedOrigins must be an array of origins such as ['https://app.example'], or '*', got "https://app.example"`,
    );
    expect(handler({ allowedOrigins: ['https://app.example/'] })).toThrow(RangeError);
    expect(handler({ allowedOrigins: ['https://app.example/mcp'] })).toThrow(
      `allowedOrigins: "https://app.example/mcp" has a path; an origin is scheme://host[:port], e.g. 'https://app.example'`,
    );
    expect(handler({ allowedOrigins: ['https://app.example', 'http://localhost:5173'] })).not.toThrow();
  });

  it('allowedHosts with a port or a scheme, or not an array, names the accepted form', () => {
    expect(handler({ allowedHosts: ['mcp.internal:8080'] })).toThrow(
      `allowedHosts: "mcp.internal:8080" is not a bare host name; list names without scheme or port, e.g. 'mcp.internal'`,
    );
    expect(handler({ allowedHosts: ['https://mcp.internal'] })).toThrow(RangeError);
    expect(handler({ allowedHosts: 'mcp.internal' })).toThrow(TypeError);
    expect(handler({ allowedHosts: ['localhost', '[::1]', 'mcp.internal'] })).not.toThrow();
  });

  it('a limit that is not a number >= 0 throws a RangeError naming it', () => {
    expect(handler({ maxBodyBytes: '4mb' })).toThrow(
      'HTTP server option maxBodyBytes must be a number >= 0 (Infinity for no limit), got "4mb"',
    );
    expect(handler({ handlerCeilingMs: -1 })).toThrow(RangeError);
    expect(handler({ sessionIdleMs: Number.NaN })).toThrow(/sessionIdleMs .* got NaN/);
    expect(handler({ handlerIdleMs: Number.POSITIVE_INFINITY, keepAliveMs: 0 })).not.toThrow();
  });
});

describe('serveTools without the tools capability, over HTTP', () => {
  it('the setup throws the TypeError to onError; the request gets a 500 and the handler serves on', async () => {
    const errors: unknown[] = [];
    let declareTools = false;
    const http = createHttpHandler(
      (endpoint) => {
        serveLifecycle(endpoint, {
          serverInfo: { name: 't', version: '1' },
          capabilities: declareTools ? { tools: {} } : {},
        });
        serveTools(endpoint, [defineTool({ name: 'echo', input: z.object({}), run: () => 'hi' })]);
      },
      { onError: (error) => errors.push(error) },
    );
    const post = () =>
      http.handle(
        new Request('http://127.0.0.1/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'initialize',
            params: {
              protocolVersion: '2025-11-25',
              capabilities: {},
              clientInfo: { name: 'c', version: '1' },
            },
          }),
        }),
      );
    expect((await post()).status).toBe(500);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TypeError);
    expect(String(errors[0])).toContain('serveTools needs capabilities: { tools: {} } in serveLifecycle');
    declareTools = true;
    expect((await post()).status).toBe(200);
    await http.close();
  });
});
