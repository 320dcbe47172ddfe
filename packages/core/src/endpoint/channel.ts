import type { Revision } from '../revisions/revisions.js';
import type { RequestId } from '../schemas/types.js';
import type { JsonRpcMessage } from './messages.js';

/**
 * What core decided about a message it hands a {@link Channel}, so a transport carries it out without
 * looking inside: which request it belongs to and whether it ends that request's stream.
 *
 * - `request`: our outbound request; `id` is its id, `text` the message as JSON (serialized once by core,
 *   which rejects the caller itself when that fails, so a channel is never handed what cannot be written).
 * - `response`: the answer to the peer's request `id`, which ends that request's stream unless `open` (a
 *   listen stream the server ends: a cancel follows it [L11 CN3]); a 2025-11-25 `CreateTaskResult` sets
 *   `task`: that request's messages still come, on any stream [PT5].
 * - `progress`: progress of the peer's request `id`.
 * - `notification`: a notification core writes about request `id`; `final` when it ends that request's
 *   stream (the cancel after the response of a listen stream the server ends [L11 CN3]).
 *
 * A cancel is carried out by `cancelRequest`; a channel without it is handed the notification with no
 * intent. Three more writes carry none: a 2025-03-26 batch (an array of responses answering one batch [J9]); an
 * answer to input that named no request we serve (bad JSON, a duplicate id, an invalid message), which
 * belongs to no request's stream; and a notification the application sends (`Endpoint.notify`), which
 * belongs to the request `related` names, if any, and never ends its stream.
 */
export type SendIntent =
  | {
      /** A request core sends. */
      readonly kind: 'request';
      /** Its id, as core names the request. */
      readonly id: RequestId;
      /** Its method. */
      readonly method: string;
      /** The revision it is sent under. */
      readonly revision: Revision;
      /** The message as JSON, serialized once by core. */
      readonly text: string;
    }
  | {
      /** A response to an inbound request. */
      readonly kind: 'response';
      /** The inbound request it answers. */
      readonly id: RequestId;
      /** The request's stream stays open after it (a message that ends it follows). */
      readonly open?: boolean;
      /** A 2025-11-25 `CreateTaskResult`: the task's progress may still follow. */
      readonly task?: boolean;
    }
  | {
      /** Progress of an inbound request. */
      readonly kind: 'progress';
      /** The inbound request it belongs to. */
      readonly id: RequestId;
    }
  | {
      /** Any other notification. */
      readonly kind: 'notification';
      /** The request it belongs to, if any. */
      readonly id?: RequestId | undefined;
      /** It ends that request's stream (the cancel that closes a listen stream). */
      readonly final?: boolean;
    };

/**
 * Where an `Endpoint` writes. Adapters implement it: stdio writes one line per message; HTTP
 * writes a message to the response stream of the request it relates to.
 */
export interface Channel {
  /**
   * Writes one message (or a 2025-03-26 batch array). `related` is the id of the inbound request the
   * message belongs to (its progress, its response), as before; `intent` is what core decided about it
   * ({@link SendIntent}): act on it rather than read the message.
   */
  write(message: JsonRpcMessage | JsonRpcMessage[], related?: RequestId, intent?: SendIntent): void;
  /**
   * Carries out the cancel of an outbound request that core's policy chose: send `notification` (stdio,
   * legacy HTTP [CN25]), or, when it is undefined, close that request's response stream and send nothing
   * (2026-07-28 HTTP [CN24]). A channel decides nothing here and inspects no message. Without this
   * method core writes the notification with `write`, and a close-stream cancel has nothing to close.
   */
  cancelRequest?(id: RequestId, notification: JsonRpcMessage | undefined): void;
  /**
   * Our request `id` ended (answered, failed, cancelled, timed out): nothing more is awaited for it, so a
   * transport stops reading its reply. Called before `cancelRequest`, which carries out a cancel; a channel
   * aborts nothing here.
   */
  settled?(id: RequestId): void;
  /**
   * An inbound request ended with no response and none will follow (the peer cancelled it, a cancel came
   * before it, its stream was dropped) [CN9]. HTTP ends that request's stream here; stdio has nothing to do.
   */
  suppressed?(id: RequestId): void;
}
