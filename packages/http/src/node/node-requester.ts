import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import type { Requester, WireResponse } from '../client/requester.js';
import { readNodeBody, readNodeBytes } from './node-listener.js';

/** A body this short with a known length is read to its end on discard, so its keep-alive connection is reused. */
const DRAIN_MAX_BYTES = 64 * 1024;

/**
 * The Node client's requester: `node:http` / `node:https` on their global agents (keep-alive, as Node
 * sets them), no Fetch `Request`, `Response` or web stream per call. An aborted signal destroys the
 * request, which closes its connection: for a 2026-07-28 request, that is its cancel [CN22].
 */
export function nodeRequester(): Requester {
  let lastUrl = '';
  let target: RequestOptions = {};
  return (url, { method, headers, body, signal }) =>
    new Promise<WireResponse>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      if (url !== lastUrl) {
        target = urlToHttpOptions(new URL(url));
        lastUrl = url;
      }
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      let request: ClientRequest;
      try {
        request = send({ ...target, method, headers });
      } catch (error) {
        return reject(error); // an invalid header value, named by node:http
      }
      // Once the body is complete, the connection is back in the agent's pool (perhaps already serving
      // another request), even while the body is still unread: an abort must leave it alone then.
      let answer: IncomingMessage | undefined;
      const onAbort = (): void => {
        if (!answer?.complete) request.destroy(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const release = (): void => signal?.removeEventListener('abort', onAbort);
      // After the response, a destroyed request's error is the body's to report (its reader fails).
      request.on('error', (error) => {
        if (answer) return;
        release();
        reject(error);
      });
      request.once('response', (response) => {
        answer = response;
        response.on('error', () => {}); // reported to whoever reads the body
        response.once('end', release);
        response.once('close', release);
        resolve(fromIncoming(response));
      });
      request.end(body);
    });
}

function fromIncoming(response: IncomingMessage): WireResponse {
  return {
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    header: (name) => {
      const value = response.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
    chunks: () => response,
    text: () => readNodeBody(response, Number.POSITIVE_INFINITY, SERVER_GONE).then((text) => text ?? ''),
    bytes: () => readNodeBytes(response, Number.POSITIVE_INFINITY, SERVER_GONE).then((bytes) => bytes!),
    discard: () => {
      if (response.readableEnded || response.destroyed) return Promise.resolve();
      const short = response.complete || Number(response.headers['content-length']) <= DRAIN_MAX_BYTES;
      if (!short) {
        response.destroy();
        return Promise.resolve();
      }
      // Read to its end even when complete: only then does the agent take the connection back for reuse.
      return new Promise<void>((resolve) => {
        response.once('end', resolve);
        response.once('close', resolve);
        response.resume();
      });
    },
  };
}

/** One reason for every response cut short: no per-exchange detail, so no stack is captured per drop. */
const SERVER_GONE = new Error('the connection closed before the response body ended');
