import {
  type Channel,
  Endpoint,
  type EndpointOptions,
  InflightError,
  type JsonRpcMessage,
  type Role,
} from '@mcp-inflight/core';
import { LineFramer } from '../framing/line-framer.js';
import { LineWriter } from '../framing/line-writer.js';
import {
  type BadInput,
  overlongLineResponse,
  parseErrorResponse,
  unserializableResponse,
} from './bad-input.js';
import type { StdioConnection, StdioConnectionOptions } from './options.js';

export type { StdioConnection, StdioConnectionOptions, StdioConnectionStats } from './options.js';

/**
 * Serves MCP over any Readable/Writable pair: newline-delimited JSON in both directions, every rule of
 * the core {@link Endpoint} on the wire. This is the general form behind `serveStdio` (a server on
 * process stdio) and `spawnStdio` (a client of a child process); use it for sockets, pipes, or a proxy's
 * legs.
 *
 * @example
 * ```ts
 * import { createConnection } from 'node:net';
 * import { connectStdio } from '@mcp-inflight/stdio';
 * const socket = createConnection('./mcp.sock');
 * const connection = connectStdio({ input: socket, output: socket, role: 'client', idleMs: 30_000 });
 * const result = await connection.endpoint.request('initialize', {
 *   protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'me', version: '1.0.0' },
 * });
 * ```
 */
export function connectStdio(options: StdioConnectionOptions): StdioConnection {
  const { input, output, role, setup, onBadInput } = options;
  const answerBadInput = options.answerBadInput ?? role === 'server';
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(toError(error)));
  let parseErrors = 0;
  let reason: InflightError | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const writer = new LineWriter(output, {
    ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
    onOverflow: (bytes) =>
      finish(
        lostPeer(
          role,
          `the peer stopped reading: ${bytes} bytes waited to be written (limit ${writer.maxQueuedBytes})`,
        ),
      ),
  });
  const write = (message: JsonRpcMessage | JsonRpcMessage[]): void => {
    if (reason) return;
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      // Never throw into the endpoint: a handler's unserializable result becomes an internal error.
      if (Array.isArray(message) || !('id' in message)) return onError(error);
      line = JSON.stringify(unserializableResponse(message.id, error));
    }
    writer.writeLine(line);
  };
  const channel: Channel = { write };
  // The endpoint reports a throwing notification handler here and keeps serving.
  const endpoint = new Endpoint({ ...endpointOptions(options), onError, role, transport: 'stdio', channel });

  const report = (event: BadInput): void => onBadInput?.(event);
  const framer = new LineFramer({
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    onLine(line) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        parseErrors++;
        if (answerBadInput) write(parseErrorResponse(line));
        return report({
          kind: 'parse-error',
          detail: 'the line is not valid JSON',
          bytes: Buffer.byteLength(line),
          answered: answerBadInput,
        });
      }
      endpoint.receive(value);
    },
    onOverlong(lineBytes) {
      if (answerBadInput) write(overlongLineResponse(lineBytes, framer.maxLineBytes));
      report({
        kind: 'overlong-line',
        detail: `a line of ${lineBytes} bytes passed maxLineBytes (${framer.maxLineBytes})`,
        bytes: lineBytes,
        answered: answerBadInput,
      });
    },
  });

  const onData = (chunk: Buffer | string): void => {
    if (!reason) framer.push(chunk);
  };
  let inputEnded = false;
  const onInputEnd = (): void => {
    if (reason || inputEnded) return;
    inputEnded = true;
    const left = framer.end();
    if (left > 0)
      report({
        kind: 'truncated-at-end',
        detail: `${left} bytes after the last newline`,
        bytes: left,
        answered: false,
      });
    if (options.closeOnInputEnd === false) return;
    finish(
      lostPeer(role, role === 'server' ? 'the client closed our input' : 'the server closed its output'),
    );
  };
  const onInputError = (error: Error): void =>
    finish(lostPeer(role, `reading failed: ${error.message}`, error));
  const onOutputError = (error: Error): void => outputGone(`writing failed: ${error.message}`, error);
  const onOutputClose = (): void => outputGone('our output closed');

  /**
   * A server whose output is gone can reach no one. A client's output (the child's stdin) closes when the
   * child exits, often before the child's last lines are read, so a client keeps reading until its input
   * ends, with a short grace in case it never does; an owner that watches the process (closeOnInputEnd
   * off) decides instead, from the exit status.
   */
  function outputGone(why: string, error?: Error): void {
    if (reason) return;
    writer.stop();
    if (role === 'server') return finish(lostPeer(role, why, error));
    if (options.closeOnInputEnd === false) return;
    setTimeout(() => finish(lostPeer(role, why, error)), OUTPUT_GONE_GRACE_MS).unref();
  }

  function finish(cause: InflightError): void {
    if (reason) return;
    reason = cause;
    input.off('data', onData);
    input.off('end', onInputEnd);
    input.off('close', onInputEnd);
    output.off('close', onOutputClose);
    // Keep a quiet 'error' listener on both: a late EPIPE must not crash the process.
    input.off('error', onInputError).on('error', ignore);
    output.off('error', onOutputError).on('error', ignore);
    endpoint.close(cause);
    resolveClosed();
  }

  setup?.(endpoint);
  input.on('error', onInputError);
  input.on('end', onInputEnd);
  input.on('close', onInputEnd);
  output.on('error', onOutputError);
  output.on('close', onOutputClose);
  input.on('data', onData);

  return {
    endpoint,
    closed,
    get closeReason() {
      return reason;
    },
    get stats() {
      return { ...framer.stats, ...writer.stats, parseErrors };
    },
    async close(why = 'the connection is closing') {
      if (!reason) {
        endpoint.shutdown(why); // cancels our calls on the wire, answers the peer's with SHUTDOWN
        finish(new InflightError('SHUTDOWN', why));
        // A server stops reading so its process can exit; a client drains and discards what the child still
        // writes, so the child is never stuck on a full pipe while it shuts down.
        if (role === 'server') input.pause();
        else input.resume();
        writer.handOver();
        if (options.endOutputOnClose !== false) output.end();
      }
      await closed;
    },
    abort(cause = lostPeer(role, 'the transport was aborted')) {
      writer.stop();
      finish(cause);
    },
  };
}

/** How long a client keeps reading after its output went away, before it gives up on the peer. */
const OUTPUT_GONE_GRACE_MS = 250;

/** The cause for a peer that went away: upstream closed for a client, disconnected for a server. */
function lostPeer(role: Role, why: string, cause?: unknown): InflightError {
  return new InflightError(role === 'client' ? 'UPSTREAM_CLOSED' : 'DISCONNECTED', why, {}, { cause });
}

function endpointOptions(
  options: StdioConnectionOptions,
): Omit<EndpointOptions, 'role' | 'transport' | 'channel'> {
  const { clock, relay, revision, idleMs, ceilingMs, handlerIdleMs, handlerCeilingMs } = options;
  const { clientInfo, clientCapabilities } = options;
  const picked = {
    clock,
    relay,
    revision,
    idleMs,
    ceilingMs,
    handlerIdleMs,
    handlerCeilingMs,
    clientInfo,
    clientCapabilities,
  };
  return Object.fromEntries(Object.entries(picked).filter(([, value]) => value !== undefined));
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

function ignore(): void {}
