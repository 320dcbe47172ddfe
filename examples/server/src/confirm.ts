import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestContext } from '@mcp-inflight/core';
import { defineTool, type Tool, type ToolOutput } from '@mcp-inflight/server';
import {
  bindingOf,
  clientSupports,
  elicit,
  inputRequired,
  inputRetryOf,
  type RequestStateSigner,
} from '@mcp-inflight/server/input';
import * as z from 'zod';

const confirmInput = z.object({
  action: z.string().min(1).max(200),
  /** Work done once confirmed, with progress, like `work` (so a deadline can fire in the second round). */
  steps: z.number().int().min(0).max(1_000_000).optional(),
  intervalMs: z.number().min(0).max(3_600_000).optional(),
});

/** What the server keeps in its requestState between the two rounds (signed, so it can trust it back). */
interface Asked {
  /** The action the question was about. */
  action: string;
}

/**
 * The `confirm` tool: a two-round call. The first round asks the client to confirm `action` (an
 * elicitation embedded in an `input_required` result on 2026-07-28, a real `elicitation/create` request on
 * a legacy revision); the retry answers `declined: <action>`, or does `steps` steps of `intervalMs` with
 * progress (as `work` does) and answers `confirmed: <action>`. Its `requestState`
 * is sealed by `signer` (HMAC, bound to the request's method and arguments, with a lifetime), so a
 * tampered, expired or borrowed state is rejected with -32602.
 *
 * @example
 * ```ts
 * import { RequestStateSigner } from '@mcp-inflight/server/input';
 * import { confirmTool } from './confirm.js';
 * const tool = confirmTool(new RequestStateSigner({ ttlMs: 300_000 }));
 * ```
 */
export function confirmTool(signer: RequestStateSigner, tasks = false): Tool {
  return defineTool({
    name: 'confirm',
    description:
      'Asks the client to confirm `action` (elicitation; 2026-07-28: a multi round-trip request), then answers confirmed or declined.',
    input: confirmInput,
    run: (args, ctx) => confirm(args, ctx, signer),
    // With tasks served it may run as one: on 2026-07-28 its task waits in input_required for the answer.
    ...(tasks ? { listing: { execution: { taskSupport: 'optional' } } } : {}),
  });
}

async function confirm(
  { action, steps = 0, intervalMs = 0 }: z.output<typeof confirmInput>,
  ctx: RequestContext,
  signer: RequestStateSigner,
): Promise<ToolOutput> {
  const binding = bindingOf(ctx.method, ctx.params);
  const { inputResponses, requestState } = inputRetryOf(ctx.params);
  if (requestState !== undefined) {
    // Attacker-controlled until verified [MR4b]: open() rejects anything we did not seal for this request.
    const asked = await signer.open<Asked>(requestState, binding);
    const answer = inputResponses?.confirm;
    if (answer !== undefined) {
      const accepted =
        answer.action === 'accept' && (answer.content as { confirm?: unknown })?.confirm === true;
      if (!accepted) return `declined: ${asked.action}`;
      for (let i = 1; i <= steps; i++) {
        await sleep(intervalMs, undefined, { signal: ctx.signal });
        ctx.progress(i, steps, `${asked.action}: step ${i} of ${steps}`);
      }
      return `confirmed: ${asked.action}`;
    }
    // The answer is missing: ask again rather than fail [MR11].
  }
  if (clientSupports(ctx.meta, 'elicitation/create') === false)
    return {
      content: [{ type: 'text', text: 'this client cannot be asked (no elicitation capability)' }],
      isError: true,
    };
  return inputRequired({
    inputRequests: {
      confirm: elicit(`Proceed with ${action}?`, { confirm: { type: 'boolean', title: 'Proceed' } }, [
        'confirm',
      ]),
    },
    requestState: await signer.seal({ action } satisfies Asked, binding),
  });
}
