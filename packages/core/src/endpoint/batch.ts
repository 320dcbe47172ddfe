import { JsonRpcErrorCode } from '../errors/causes.js';
import type { Channel } from './channel.js';
import { errorResponse, type JsonRpcMessage } from './messages.js';

/**
 * Collects the responses to one 2025-03-26 batch and writes them as one array, answering in kind [J9].
 * Requests that end with no response (cancelled) shrink what it waits for.
 */
export class BatchCollector {
  #responses: JsonRpcMessage[] = [];
  #waiting = 0;
  #sealed = false;

  readonly #channel: Channel;

  constructor(channel: Channel) {
    this.#channel = channel;
  }

  /** One more response to wait for. */
  expect(): void {
    this.#waiting++;
  }

  /** A response arrived (or, with `undefined`, a request ended with none). */
  add(response: JsonRpcMessage | undefined): void {
    if (response) this.#responses.push(response);
    this.#waiting--;
    this.#maybeWrite();
  }

  /** Every element of the batch has been read; write as soon as nothing is outstanding. */
  seal(): void {
    this.#sealed = true;
    this.#maybeWrite();
  }

  #maybeWrite(): void {
    if (!this.#sealed || this.#waiting > 0) return;
    this.#sealed = false; // write once
    if (this.#responses.length > 0) this.#channel.write(this.#responses);
  }
}

export const batchTooLargeWhy = (max: number): string => `a batch of more than maxBatchElements (${max})`;

/**
 * The one answer to a batch over `maxBatchElements`: `-32600`, `id: null`, naming the limit, with
 * `data: { elements, maxBatchElements }`. For transports that refuse a batch before it reaches an endpoint.
 */
export function batchTooLarge(elements: number, maxBatchElements: number): JsonRpcMessage {
  return errorResponse(
    null,
    JsonRpcErrorCode.InvalidRequest,
    `Invalid Request: ${batchTooLargeWhy(maxBatchElements)}`,
    { elements, maxBatchElements },
  );
}
