import type { Readable, Writable } from 'node:stream';
import { Endpoint, type EndpointOptions, InflightError, systemClock } from '@mcp-inflight/core';
import { Admission, type Role } from '@mcp-inflight/core/adapter';
import { LineWriter } from '../framing/line-writer.js';
import { LineChannel } from './line-channel.js';
import { LineReader } from './line-reader.js';
import type { StdioConnection, StdioConnectionOptions, StdioConnectionStats } from './options.js';
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
  const link = new StdioLink(options);
  // A plain record of arrows, as before: `close` and `abort` work unbound.
  return {
    endpoint: link.endpoint,
    closed: link.closed,
    get closeReason() {
      return link.reason;
    },
    get stats() {
      return link.stats;
    },
    close: (why) => link.close(why),
    abort: (cause) => link.abort(cause),
  };
}

/**
 * One connection: its outbound side ({@link LineChannel}), its inbound side ({@link LineReader}), the
 * endpoint between them, and how it ends: the input ends or fails, the output fails or closes, the peer
 * stops reading, or `close()`/`abort()`. Every way out goes through {@link StdioLink.finish} once.
 */
class StdioLink {
  readonly endpoint: Endpoint;
  readonly closed: Promise<void>;
  /** Why it ended, once it has. */
  reason: InflightError | undefined;
  readonly #options: StdioConnectionOptions;
  readonly #role: Role;
  readonly #input: Readable;
  readonly #output: Writable;
  readonly #onError: (error: unknown) => void;
  readonly #writer: LineWriter;
  readonly #admission: Admission;
  readonly #gap: ResultGap;
  readonly #channel: LineChannel;
  readonly #reader: LineReader;
  #resolveClosed!: () => void;
  #inputEnded = false;

  constructor(options: StdioConnectionOptions) {
    const { input, output, role } = options;
    this.#options = options;
    this.#role = role;
    this.#input = input;
    this.#output = output;
    const onError = options.onError ?? ((error: unknown) => process.emitWarning(toError(error)));
    this.#onError = onError;
    this.closed = new Promise<void>((resolve) => {
      this.#resolveClosed = resolve;
    });
    this.#writer = new LineWriter(output, {
      ...(options.maxUnsentBytes === undefined ? {} : { maxUnsentBytes: options.maxUnsentBytes }),
      ...(options.unsentStallMs === undefined ? {} : { stallMs: options.unsentStallMs }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      onOverflow: (bytes, verdict) => this.#peerStoppedReading(bytes, verdict),
    });
    // Core decides which requests run; one admission per connection unless the caller shares one.
    const admission = options.admission ?? new Admission(admissionOptions(options));
    this.#admission = admission;
    const gapMs = options.resultGapMs ?? DEFAULT_RESULT_GAP_MS;
    this.#gap = new ResultGap(this.#writer, options.clock ?? systemClock, gapMs, admission.maxInFlight);
    this.#channel = new LineChannel(this.#writer, this.#gap, onError);
    // The endpoint reports a throwing notification handler here and keeps serving.
    const channel = this.#channel;
    this.endpoint = new Endpoint({
      ...endpointOptions(options),
      admission,
      onError,
      role,
      transport: 'stdio',
      channel,
    });
    this.#reader = new LineReader({
      endpoint: this.endpoint,
      channel,
      answerBadInput: options.answerBadInput ?? role === 'server',
      keepStrings: options.keepStrings,
      maxLineBytes: options.maxLineBytes,
      onBadInput: options.onBadInput,
    });
    options.setup?.(this.endpoint);
    input.on('error', this.#onInputError);
    input.on('end', this.#onInputEnd);
    input.on('close', this.#onInputEnd);
    output.on('error', this.#onOutputError);
    output.on('close', this.#onOutputClose);
    input.on('data', this.#onData);
  }

  get stats(): StdioConnectionStats {
    const reader = this.#reader;
    return {
      ...reader.framer.stats,
      ...this.#writer.stats,
      ...this.#admission.stats,
      ...this.#gap.stats,
      parseErrors: reader.parseErrors,
      notMessages: reader.notMessages,
    };
  }

  async close(why = 'the connection is closing'): Promise<void> {
    if (!this.reason) {
      this.endpoint.shutdown(why); // cancels our calls on the wire, answers the peer's with SHUTDOWN
      this.#gap.close((line) => this.#writer.writeLine(line)); // held responses go out now, without their gap
      this.finish(new InflightError('SHUTDOWN', why));
      // A server stops reading so its process can exit; a client drains and discards what the child still
      // writes, so the child is never stuck on a full pipe while it shuts down.
      this.#stopOrDrainInput();
      this.#writer.handOver();
      if (this.#options.endOutputOnClose !== false) this.#output.end();
    }
    await this.closed;
  }

  abort(cause = lostPeer(this.#role, 'the transport was aborted')): void {
    this.#writer.stop();
    this.finish(cause);
  }

  /** The one way out: stops reading and writing, closes the endpoint with `cause`, tells the owner. */
  finish(cause: InflightError): void {
    if (this.reason) return;
    this.#gap.close(); // a close that is not graceful drops held responses with the connection
    this.reason = cause;
    this.#channel.stopped = true;
    const input = this.#input;
    const output = this.#output;
    input.off('data', this.#onData);
    input.off('end', this.#onInputEnd);
    input.off('close', this.#onInputEnd);
    output.off('close', this.#onOutputClose);
    // Keep a quiet 'error' listener on both: a late EPIPE must not crash the process.
    input.off('error', this.#onInputError).on('error', ignore);
    output.off('error', this.#onOutputError).on('error', ignore);
    this.endpoint.close(cause);
    this.#resolveClosed();
    try {
      this.#options.onClose?.(cause);
    } catch (error) {
      this.#onError(error);
    }
  }

  readonly #onData = (chunk: Buffer | string): void => {
    if (!this.reason) this.#reader.framer.push(chunk);
  };

  readonly #onInputEnd = (): void => {
    if (this.reason || this.#inputEnded) return;
    this.#inputEnded = true;
    this.#reader.end();
    if (this.#options.closeOnInputEnd === false) return;
    const role = this.#role;
    this.finish(
      lostPeer(role, role === 'server' ? 'the client closed our input' : 'the server closed its output'),
    );
  };

  readonly #onInputError = (error: Error): void =>
    this.finish(lostPeer(this.#role, `reading failed: ${error.message}`, error));

  readonly #onOutputError = (error: Error): void =>
    this.#outputGone(`writing failed: ${error.message}`, error);

  readonly #onOutputClose = (): void => this.#outputGone('our output closed');

  /**
   * A server whose output is gone can reach no one. A client's output (the child's stdin) closes when the
   * child exits, often before the child's last lines are read, so a client keeps reading until its input
   * ends, with a short grace in case it never does; an owner that watches the process (closeOnInputEnd
   * off) decides instead, from the exit status.
   */
  #outputGone(why: string, error?: Error): void {
    if (this.reason) return;
    this.#writer.stop();
    const role = this.#role;
    if (role === 'server') return this.finish(lostPeer(role, why, error));
    if (this.#options.closeOnInputEnd === false) return;
    setTimeout(() => this.finish(lostPeer(role, why, error)), OUTPUT_GONE_GRACE_MS).unref();
  }

  /**
   * The write budget is spent: the peer has not read what we wrote for so long that it is gone. End our
   * side for real, so it sees the end instead of silence; what it never read is dropped.
   */
  #peerStoppedReading(bytes: number, verdict: 'stalled' | 'over-cap'): void {
    if (this.reason) return;
    const writer = this.#writer;
    const why =
      verdict === 'stalled'
        ? `over the budget maxUnsentBytes ${writer.maxUnsentBytes} for ${writer.stallMs} ms without shrinking`
        : `and the next line would pass the budget maxUnsentBytes ${writer.maxUnsentBytes} plus one message`;
    const cause = lostPeer(
      this.#role,
      `the peer stopped reading: ${bytes} bytes waited to be written, ${why}`,
    );
    this.finish(cause);
    destroyOutput(this.#output);
    // Never silent: with no one listening for the close, say it on stderr (stdout is the peer's).
    if (!this.#options.onClose) process.emitWarning(cause.message, { code: 'MCP_INFLIGHT_PEER_NOT_READING' });
    // The connection is over: a server stops reading so its process can exit; a client drains what the
    // child still writes, so the child is never stuck on a full pipe while it exits.
    this.#stopOrDrainInput();
  }

  #stopOrDrainInput(): void {
    if (this.#role === 'server') this.#input.pause();
    else this.#input.resume();
  }
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

function admissionOptions(options: StdioConnectionOptions): ConstructorParameters<typeof Admission>[0] {
  return {
    ...(options.maxInFlight === undefined ? {} : { maxInFlight: options.maxInFlight }),
    ...(options.maxQueuedBytes === undefined ? {} : { maxQueuedBytes: options.maxQueuedBytes }),
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  };
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
