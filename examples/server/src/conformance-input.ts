import { defineTool, type Tool } from '@mcp-inflight/server';
import type { InputRequest } from '@mcp-inflight/server/input';
import {
  bindingOf,
  elicit,
  inputRequired,
  inputRetryOf,
  RequestStateSigner,
} from '@mcp-inflight/server/input';
import * as z from 'zod';

// The tools the conformance suite's 2026-07-28 input-required-result scenarios call by name: each asks
// for one input in an `input_required` result, and answers once the retry carries it. A retry without the
// answer is asked again rather than failed [MR11].

const noInput = z.object({});

/** One input asked under `key`; `answer` turns the client's response into the tool's text. */
function askOnce(
  name: string,
  key: string,
  ask: InputRequest,
  answer: (response: Record<string, unknown>) => string,
): Tool {
  return defineTool({
    name,
    description: `Asks for ${ask.method} in an input_required result, then answers (conformance).`,
    input: noInput,
    run: (_args, ctx) => {
      const response = inputRetryOf(ctx.params).inputResponses?.[key];
      if (response !== undefined) return answer(response as Record<string, unknown>);
      return inputRequired({ inputRequests: { [key]: ask } });
    },
  });
}

const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);

/** One signer for the process: the retry's requestState is opened by the key that sealed it. */
const signer = new RequestStateSigner({ ttlMs: 300_000 });

/**
 * The four fixture tools of the input-required-result scenarios: elicitation, sampling, roots, and one
 * whose requestState (sealed, bound to the request) must come back for the call to complete.
 *
 * @example
 * ```ts
 * import { inputRequiredTools } from './conformance-input.js';
 * inputRequiredTools().map((t) => t.name).includes('test_input_required_result_sampling'); // true
 * ```
 */
export function inputRequiredTools(): Tool[] {
  return [
    askOnce(
      'test_input_required_result_elicitation',
      'user_name',
      elicit('What is your name?', { name: { type: 'string' } }, ['name']),
      (response) => `Hello, ${textOf((response.content as { name?: unknown } | undefined)?.name)}!`,
    ),
    askOnce(
      'test_input_required_result_sampling',
      'capital_question',
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }],
          maxTokens: 100,
        },
      },
      (response) => `The model said: ${textOf((response.content as { text?: unknown } | undefined)?.text)}`,
    ),
    askOnce('test_input_required_result_list_roots', 'client_roots', { method: 'roots/list' }, (response) => {
      const roots = Array.isArray(response.roots) ? response.roots : [];
      return `roots: ${roots.map((root) => textOf((root as { uri?: unknown }).uri)).join(', ')}`;
    }),
    defineTool({
      name: 'test_input_required_result_request_state',
      description: 'Asks for a confirmation with a sealed requestState, then answers state-ok (conformance).',
      input: noInput,
      run: async (_args, ctx) => {
        const binding = bindingOf(ctx.method, ctx.params);
        const { inputResponses, requestState } = inputRetryOf(ctx.params);
        if (requestState !== undefined) {
          // Attacker-controlled until verified [MR4b]: open() rejects what we did not seal (-32602).
          await signer.open<{ round: number }>(requestState, binding);
          if (inputResponses?.confirm !== undefined) return 'state-ok: the requestState came back intact';
        }
        return inputRequired({
          inputRequests: { confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']) },
          requestState: await signer.seal({ round: 1 }, binding),
        });
      },
    }),
  ];
}
