import type { Writable } from 'node:stream';
import {
  Endpoint,
  type EndpointOptions,
  InflightError,
  type RequestId,
  systemClock,
} from '@mcp-inflight/core';
import {
  Admission,
  type Channel,
  type JsonPiece,
  type JsonRpcMessage,
  jsonPieces,
  type Role,
  type SendIntent,
} from '@mcp-inflight/core/adapter';
import { LineFramer } from '../framing/line-framer.js';
import { LineWriter } from '../framing/line-writer.js';
import {
  type BadInput,
  isMessageShaped,
  overlongLineResponse,
  parseErrorResponse,
  unserializableResponse,
} from './bad-input.js';
import type { StdioConnection, StdioConnectionOptions } from './options.js';
import { DEFAULT_RESULT_GAP_MS, ResultGap } from './result-gap.js';

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
  const keep = options.keepStrings;
  const onError = options.onError ?? ((error: unknown) => process.emitWarning(toError(error)));
  let parseErrors = 0;
  let notMessages = 0;
  let reason: InflightError | undefined;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  const writer = new LineWriter(output, {
    ...(options.maxUnsentBytes === undefined ? {} : { maxUnsentBytes: options.maxUnsentBytes }),
    ...(options.unsentStallMs === undefined ? {} : { stallMs: options.unsentStallMs }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
    onOverflow: (bytes) => peerStoppedReading(bytes),
  });
  // Core decides which requests run; one admission per connection unless the caller shares one.
  const admission =
    options.admission ??
    new Admission({
      ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
      ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  const gap = new ResultGap(
    writer,
    options.clock ?? systemClock,
    options.resultGapMs ?? DEFAULT_RESULT_GAP_MS,
    admission.maxInFlight,
  );
  /** Carries out what core decided about each message (its {@link SendIntent}); it never reads the message. */
  const write = (
    message: JsonRpcMessage | JsonRpcMessage[],
    _related?: RequestId,
    intent?: SendIntent,
  ): void => {
    if (reason) return;
    let line: string | JsonPiece[];
    if (intent?.kind === 'request')
      line = intent.text; // serialized once by core, which refused what could not be
    else {
      try {
        line = jsonPieces(message); // a relayed result's kept strings go out as they came
      } catch (error) {
        // Never throw into the endpoint: a handler's unserializable result becomes an internal error.
        if (intent?.kind !== 'response') return onError(error);
        line = JSON.stringify(unserializableResponse(intent.id, error));
      }
    }
    // A response right after its request's progress waits out the gap, so an SDK v1 host reads the two
    // apart (see result-gap).
    if (intent?.kind === 'progress') gap.progress(intent.id);
    else if (intent?.kind === 'response' && gap.hold(intent.id, line)) return;
    writer.writeLine(line);
  };
  const channel: Channel = {
    write,
    suppressed: (id) => gap.forget(id),
  };
  // The endpoint reports a throwing notification handler here and keeps serving.
  const endpoint = new Endpoint({
    ...endpointOptions(options),
    admission,
    onError,
    role,
    transport: 'stdio',
    channel,
  });

  const report = (event: BadInput): void => onBadInput?.(event);
  /** One line to the endpoint: text, or (a relay's long line) the bytes it was read as. */
  const take = (line: string | Buffer): void => {
    let value: unknown;
    try {
      value = keep ? keep.parse(line) : JSON.parse(line as string);
    } catch {
      parseErrors++;
      const bytes = Buffer.byteLength(line); // a Buffer's length, or the text's UTF-8 size
      if (answerBadInput) write(parseErrorResponse(bytes));
      return report({
        kind: 'parse-error',
        detail: 'the line is not valid JSON',
        bytes,
        answered: answerBadInput,
      });
    }
    if (!answerBadInput && !isMessageShaped(value)) {
      // A client answers only what its server sent as a message: `null`, `42` or a JSON log record on
      // the server's stdout is a stray line, not a request (and a 2026-07-28 client writes no
      // responses [S5]).
      notMessages++;
      return report({
        kind: 'not-a-message',
        detail: 'the line is JSON but not a JSON-RPC message (no method, result or error)',
        bytes: Buffer.byteLength(line),
        answered: false,
      });
    }
    // The line sizes a request that waits for admission.
    endpoint.receive(value, typeof line === 'string' ? line : line.length);
  };
  const framer = new LineFramer({
    ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
    onLine: take,
    ...(keep ? { onLongLine: take, longLineBytes: keep.minBytes } : {}),
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

  /**
   * The write budget is spent: the peer has not read what we wrote for so long that it is gone. End our
   * side for real, so it sees the end instead of silence; what it never read is dropped.
   */
  function peerStoppedReading(bytes: number): void {
    if (reason) return;
    const cause = lostPeer(
      role,
      `the peer stopped reading: ${bytes} bytes waited to be written, over the budget maxUnsentBytes ${writer.maxUnsentBytes} for ${writer.stallMs} ms without shrinking`,
    );
    finish(cause);
    destroyOutput(output);
    // Never silent: with no one listening for the close, say it on stderr (stdout is the peer's).
    if (!options.onClose) process.emitWarning(cause.message, { code: 'MCP_INFLIGHT_PEER_NOT_READING' });
    // The connection is over: a server stops reading so its process can exit; a client drains what the
    // child still writes, so the child is never stuck on a full pipe while it exits.
    if (role === 'server') input.pause();
    else input.resume();
  }

  function finish(cause: InflightError): void {
    if (reason) return;
    gap.close(); // a close that is not graceful drops held responses with the connection
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
    try {
      options.onClose?.(cause);
    } catch (error) {
      onError(error);
    }
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
      return { ...framer.stats, ...writer.stats, ...admission.stats, ...gap.stats, parseErrors, notMessages };
    },
    async close(why = 'the connection is closing') {
      if (!reason) {
        endpoint.shutdown(why); // cancels our calls on the wire, answers the peer's with SHUTDOWN
        gap.close((line) => writer.writeLine(line)); // held responses go out now, without their gap
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

/**
 * Ends `output` now, dropping what the peer never read: `end()` would wait for a reader that is gone.
 * Node's `process.stdout` ignores `destroy()` (it keeps fd 1 open for `console`), so it gets the destroy of
 * its own stream class, as Node gives it at exit; otherwise the peer would never see our output end.
 */
function destroyOutput(output: Writable): void {
  const stdio = output as { _isStdio?: boolean; _destroy?: unknown };
  if (stdio._isStdio === true && Object.hasOwn(stdio, '_destroy')) delete stdio._destroy;
  output.destroy();
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
  const { clock, progressRelay, revision, idleMs, ceilingMs, handlerIdleMs, handlerCeilingMs } = options;
  const { clientInfo, clientCapabilities, maxBatchElements } = options;
  const picked = {
    maxBatchElements,
    clock,
    progressRelay,
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
