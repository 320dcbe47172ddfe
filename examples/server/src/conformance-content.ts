import { setTimeout as sleep } from 'node:timers/promises';
import { type Endpoint, JsonRpcError, type RequestContext, type Revision } from '@mcp-inflight/core';
import { MODERN_REVISION } from '@mcp-inflight/core/adapter';
import {
  definePrompt,
  defineResource,
  defineResourceTemplate,
  defineTool,
  type Prompt,
  PromptList,
  type Publisher,
  ResourceList,
  type ServedTools,
  type Tool,
} from '@mcp-inflight/server';
import type { InputRequest, InputRequests } from '@mcp-inflight/server/input';
import {
  bindingOf,
  elicit,
  inputRequired,
  inputRetryOf,
  RequestStateSigner,
} from '@mcp-inflight/server/input';
import * as z from 'zod';

// The rest of the conformance suite's server fixtures (`--conformance`), on the tool layer's prompts and
// resources: the content tools, the JSON Schema 2020-12 tool, the legacy sampling/elicitation/logging
// tools, the 2026-07-28 diagnostic tools (test_missing_capability, test_streaming_elicitation,
// test_logging_tool), the remaining input-required-result tools and prompt, the prompts and resources
// the suite reads by name, and test_trigger_prompt_change.

const noInput = z.object({});
const isLegacy = (revision: Revision): boolean => revision !== MODERN_REVISION;
/** A 1x1 PNG and a minimal WAV, base64. */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
const WAV = 'UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=';

/** -32021: the request needs a capability the client did not declare [2026-07-28 basic/index]. */
const MISSING_CLIENT_CAPABILITY = -32021;
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

const clientCapabilities = (ctx: RequestContext): Record<string, unknown> =>
  (ctx.meta?.[CLIENT_CAPABILITIES] as Record<string, unknown> | undefined) ?? {};

const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : JSON.stringify(value ?? null);

/** One signer for these fixtures: a retry's requestState is opened by the key that sealed it. */
const signer = new RequestStateSigner({ ttlMs: 300_000 });

/** A tool that asks for one input (`request`) on the first round and answers with `answer` after. */
function asking(
  name: string,
  description: string,
  request: InputRequest,
  answer: (response: Record<string, unknown>) => string,
  input: z.ZodObject = noInput,
): Tool {
  return defineTool({
    name,
    description,
    input,
    run: (_args, ctx) => {
      const response = inputRetryOf(ctx.params).inputResponses?.answer;
      if (response !== undefined) return answer(response as Record<string, unknown>);
      return inputRequired({ inputRequests: { answer: request } });
    },
  });
}

const elicited = (response: Record<string, unknown>): string =>
  `Elicitation completed: action=${textOf(response.action)}, content=${JSON.stringify(response.content ?? {})}`;

/** The content, schema, legacy server-to-client and diagnostic tools. */
export function contentTools(): Tool[] {
  return [
    defineTool({
      name: 'test_image_content',
      description: 'Returns one image block (conformance).',
      input: noInput,
      run: () => ({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
    }),
    defineTool({
      name: 'test_audio_content',
      description: 'Returns one audio block (conformance).',
      input: noInput,
      run: () => ({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
    }),
    defineTool({
      name: 'test_embedded_resource',
      description: 'Returns one embedded resource (conformance).',
      input: noInput,
      run: () => ({
        content: [
          {
            type: 'resource',
            resource: {
              uri: 'test://embedded-resource',
              mimeType: 'text/plain',
              text: 'This is an embedded resource content.',
            },
          },
        ],
      }),
    }),
    defineTool({
      name: 'test_multiple_content_types',
      description: 'Returns text, an image and an embedded resource (conformance).',
      input: noInput,
      run: () => ({
        content: [
          { type: 'text', text: 'Multiple content types test:' },
          { type: 'image', data: PNG, mimeType: 'image/png' },
          {
            type: 'resource',
            resource: {
              uri: 'test://mixed-content-resource',
              mimeType: 'application/json',
              text: JSON.stringify({ test: 'data', value: 123 }),
            },
          },
        ],
      }),
    }),
    defineTool({
      name: 'json_schema_2020_12_tool',
      description:
        'Lists a JSON Schema 2020-12 input schema: $schema, $defs with $anchor, allOf/anyOf, if/then/else (conformance).',
      input: z
        .object({
          name: z.string().optional(),
          address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
          contactMethod: z.enum(['phone', 'email']).optional(),
          phone: z.string().optional(),
          email: z.string().optional(),
        })
        .strict(),
      // The listing shows the schema as written (`listing` wins over the schema made from zod), so every
      // 2020-12 keyword reaches the client as it is.
      listing: {
        inputSchema: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          $defs: {
            address: {
              $anchor: 'addressDef',
              type: 'object',
              properties: { street: { type: 'string' }, city: { type: 'string' } },
            },
          },
          properties: {
            name: { type: 'string' },
            address: { $ref: '#/$defs/address' },
            contactMethod: { type: 'string', enum: ['phone', 'email'] },
            phone: { type: 'string' },
            email: { type: 'string' },
          },
          allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
          if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
          // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then`, deep in a listing nothing awaits
          then: { required: ['phone'] },
          else: { required: ['email'] },
          additionalProperties: false,
        },
      },
      run: (args) => `JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`,
    }),
    // Legacy server-to-client requests: on a legacy revision the tool layer sends the input request as
    // the revision's own request and runs the tool again with the answer.
    asking(
      'test_sampling',
      'Asks the client to sample (conformance).',
      {
        method: 'sampling/createMessage',
        params: {
          messages: [{ role: 'user', content: { type: 'text', text: 'Test prompt' } }],
          maxTokens: 100,
        },
      },
      (response) =>
        `LLM response: ${textOf((response.content as { text?: unknown } | undefined)?.text ?? 'No response')}`,
      z.object({ prompt: z.string().optional() }),
    ),
    asking(
      'test_elicitation',
      'Asks the user for input (conformance).',
      elicit(
        'Please provide your information',
        { response: { type: 'string', description: "User's response" } },
        ['response'],
      ),
      (response) =>
        `User response: action=${textOf(response.action)}, content=${JSON.stringify(response.content ?? {})}`,
      z.object({ message: z.string().optional() }),
    ),
    asking(
      'test_elicitation_sep1034_defaults',
      'Asks with a default for every primitive type (conformance, SEP-1034).',
      elicit('Please review and update the form fields with defaults', {
        name: { type: 'string', description: 'User name', default: 'John Doe' },
        age: { type: 'integer', description: 'User age', default: 30 },
        score: { type: 'number', description: 'User score', default: 95.5 },
        status: {
          type: 'string',
          description: 'User status',
          enum: ['active', 'inactive', 'pending'],
          default: 'active',
        },
        verified: { type: 'boolean', description: 'Verification status', default: true },
      }),
      elicited,
    ),
    asking(
      'test_elicitation_sep1330_enums',
      'Asks with each enum schema variant (conformance, SEP-1330).',
      elicit('Please select options from the enum fields', {
        untitledSingle: {
          type: 'string',
          description: 'Select one option',
          enum: ['option1', 'option2', 'option3'],
        },
        titledSingle: {
          type: 'string',
          description: 'Select one option with titles',
          oneOf: [
            { const: 'value1', title: 'First Option' },
            { const: 'value2', title: 'Second Option' },
            { const: 'value3', title: 'Third Option' },
          ],
        },
        legacyEnum: {
          type: 'string',
          description: 'Select one option (legacy)',
          enum: ['opt1', 'opt2', 'opt3'],
          enumNames: ['Option One', 'Option Two', 'Option Three'],
        },
        untitledMulti: {
          type: 'array',
          description: 'Select multiple options',
          minItems: 1,
          maxItems: 3,
          items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
        },
        titledMulti: {
          type: 'array',
          description: 'Select multiple options with titles',
          minItems: 1,
          maxItems: 3,
          items: {
            anyOf: [
              { const: 'value1', title: 'First Choice' },
              { const: 'value2', title: 'Second Choice' },
              { const: 'value3', title: 'Third Choice' },
            ],
          },
        },
      }),
      elicited,
    ),
    // Logged around by the endpoint's tools/call wrapper (withLogging below): the log needs the endpoint.
    ...[...LOGGING_TOOLS].map((name) =>
      defineTool({
        name,
        description: 'Sends log messages while it runs, where the request allows them (conformance).',
        input: noInput,
        run: async (_args, ctx) => {
          await sleep(50, undefined, { signal: ctx.signal });
          return 'Tool with logging executed successfully';
        },
      }),
    ),
    defineTool({
      name: 'test_missing_capability',
      description: 'Needs the sampling capability; without it, -32021 (conformance).',
      input: noInput,
      run: (_args, ctx) => {
        if (isLegacy(ctx.revision) || clientCapabilities(ctx).sampling !== undefined)
          return 'the client declared sampling';
        throw new JsonRpcError(MISSING_CLIENT_CAPABILITY, 'Missing required client capability: sampling', {
          requiredCapabilities: { sampling: {} },
        });
      },
    }),
    defineTool({
      name: 'test_streaming_elicitation',
      description: 'Asks for input in an input_required result, never as a request of its own (conformance).',
      input: noInput,
      run: (_args, ctx) => {
        const response = inputRetryOf(ctx.params).inputResponses?.confirm;
        if (response !== undefined) return elicited(response as Record<string, unknown>);
        if (!isLegacy(ctx.revision) && clientCapabilities(ctx).elicitation === undefined)
          throw new JsonRpcError(
            MISSING_CLIENT_CAPABILITY,
            'Missing required client capability: elicitation',
            {
              requiredCapabilities: { elicitation: {} },
            },
          );
        return inputRequired({
          inputRequests: { confirm: elicit('Continue?', { ok: { type: 'boolean' } }, ['ok']) },
        });
      },
    }),
    ...inputRequiredFixtures(),
  ];
}

/** The input-required-result tools beyond the four basic ones (conformance-input.ts). */
function inputRequiredFixtures(): Tool[] {
  const name = elicit('What is your name?', { name: { type: 'string' } }, ['name']);
  return [
    defineTool({
      name: 'test_input_required_result_multiple_inputs',
      description: 'Asks for an elicitation, a sampling and the roots at once (conformance).',
      input: noInput,
      run: async (_args, ctx) => {
        const binding = bindingOf(ctx.method, ctx.params);
        const { inputResponses, requestState } = inputRetryOf(ctx.params);
        const keys = ['user_name', 'greeting', 'client_roots'];
        if (requestState !== undefined && keys.every((key) => inputResponses?.[key] !== undefined)) {
          await signer.open(requestState, binding);
          return 'all three inputs arrived';
        }
        return inputRequired({
          inputRequests: {
            user_name: name,
            greeting: {
              method: 'sampling/createMessage',
              params: {
                messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
                maxTokens: 50,
              },
            },
            client_roots: { method: 'roots/list', params: {} },
          },
          requestState: await signer.seal({ round: 1 }, binding),
        });
      },
    }),
    defineTool({
      name: 'test_input_required_result_multi_round',
      description: 'Asks twice, with a requestState that changes each round (conformance).',
      input: noInput,
      run: async (_args, ctx) => {
        const binding = bindingOf(ctx.method, ctx.params);
        const { inputResponses, requestState } = inputRetryOf(ctx.params);
        const round =
          requestState === undefined
            ? 0
            : (await signer.open<{ round: number }>(requestState, binding)).round;
        if (round === 1 && inputResponses?.step1 !== undefined)
          return inputRequired({
            inputRequests: {
              step2: elicit('Step 2: What is your favorite color?', { color: { type: 'string' } }, ['color']),
            },
            requestState: await signer.seal({ round: 2 }, binding),
          });
        if (round === 2 && inputResponses?.step2 !== undefined) return 'both rounds answered';
        return inputRequired({
          inputRequests: {
            step1: elicit('Step 1: What is your name?', { name: { type: 'string' } }, ['name']),
          },
          requestState: await signer.seal({ round: 1 }, binding),
        });
      },
    }),
    defineTool({
      name: 'test_input_required_result_tampered_state',
      description: 'Seals its requestState; a tampered one is refused with -32602 (conformance).',
      input: noInput,
      run: async (_args, ctx) => {
        const binding = bindingOf(ctx.method, ctx.params);
        const { requestState } = inputRetryOf(ctx.params);
        // open() refuses what we did not seal with -32602 [MR4b].
        if (requestState !== undefined) {
          await signer.open(requestState, binding);
          return 'the requestState came back intact';
        }
        return inputRequired({
          inputRequests: { confirm: elicit('Please confirm', { ok: { type: 'boolean' } }, ['ok']) },
          requestState: await signer.seal({ round: 1 }, binding),
        });
      },
    }),
    defineTool({
      name: 'test_input_required_result_capabilities',
      description: 'Asks only for what the client declared it can answer (conformance).',
      input: noInput,
      run: (_args, ctx) => {
        const { inputResponses } = inputRetryOf(ctx.params);
        if (inputResponses !== undefined) return 'answered with what the client can do';
        const declared = clientCapabilities(ctx);
        const requests: InputRequests = {};
        if (declared.elicitation !== undefined) requests.user_name = name;
        if (declared.sampling !== undefined)
          requests.greeting = {
            method: 'sampling/createMessage',
            params: {
              messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
              maxTokens: 20,
            },
          };
        if (declared.roots !== undefined) requests.client_roots = { method: 'roots/list', params: {} };
        if (Object.keys(requests).length === 0) return 'the client declared nothing to ask with';
        return inputRequired({ inputRequests: requests });
      },
    }),
  ];
}

/** The two logging tools; `withLogging` sends their log messages, which need the endpoint. */
const LOGGING_TOOLS: ReadonlySet<string> = new Set(['test_tool_with_logging', 'test_logging_tool']);

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/**
 * The `tools/call` handler for one endpoint: the tool layer's, with the logging tools' messages sent
 * around it, related to the request, at `info`. Legacy: when `logging/setLevel` allows `info` (or set no
 * level). 2026-07-28: only when the request's `_meta` names a log level that allows it (none otherwise,
 * the changelog's MUST NOT). Also serves `logging/setLevel` for legacy sessions (gone on 2026-07-28).
 */
export function withLogging(endpoint: Endpoint, served: ServedTools): ServedTools['call'] {
  let sessionLevel: string | undefined;
  endpoint.setRequestHandler('logging/setLevel', (params, ctx) => {
    if (!isLegacy(ctx.revision)) throw new JsonRpcError(-32601, 'Method not found: logging/setLevel');
    const level = (params as { level?: unknown } | undefined)?.level;
    if (typeof level !== 'string' || !LEVELS.includes(level))
      throw new JsonRpcError(-32602, `Invalid params: level must be one of ${LEVELS.join(', ')}`);
    sessionLevel = level;
    return {};
  });
  return async (params, ctx) => {
    if (!LOGGING_TOOLS.has(String(params?.name))) return served.call(params, ctx);
    const level = isLegacy(ctx.revision) ? (sessionLevel ?? 'debug') : ctx.meta?.[LOG_LEVEL];
    const allowed = typeof level === 'string' && LEVELS.indexOf(level) <= LEVELS.indexOf('info');
    const log = (data: string): void => {
      if (allowed)
        endpoint.notify('notifications/message', { level: 'info', logger: 'conformance', data }, ctx.id);
    };
    log('Tool execution started');
    log('Tool processing data');
    const result = await served.call(params, ctx);
    log('Tool execution completed');
    return result;
  };
}

/** The prompts the suite gets by name, and the input-required one; changed by test_trigger_prompt_change. */
export function conformancePrompts(listenStreams: Publisher): PromptList {
  return new PromptList(
    [
      definePrompt({
        name: 'test_simple_prompt',
        title: 'Simple Test Prompt',
        description: 'A prompt without arguments (conformance).',
        get: () => 'This is a simple prompt for testing.',
      }),
      definePrompt({
        name: 'test_prompt_with_arguments',
        title: 'Prompt With Arguments',
        description: 'A prompt with two required arguments (conformance).',
        arguments: z.object({
          arg1: z.string().describe('First test argument'),
          arg2: z.string().describe('Second test argument'),
        }),
        complete: { arg1: (typed) => ['paris', 'park', 'party'].filter((v) => v.startsWith(typed)) },
        get: ({ arg1, arg2 }) => `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'`,
      }),
      definePrompt({
        name: 'test_prompt_with_embedded_resource',
        title: 'Prompt With Embedded Resource',
        description: 'A prompt that embeds a resource (conformance).',
        arguments: z.object({ resourceUri: z.string().describe('URI of the resource to embed') }),
        get: ({ resourceUri }) => ({
          messages: [
            {
              role: 'user',
              content: {
                type: 'resource',
                resource: {
                  uri: resourceUri,
                  mimeType: 'text/plain',
                  text: 'Embedded resource content for testing.',
                },
              },
            },
            { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
          ],
        }),
      }),
      definePrompt({
        name: 'test_prompt_with_image',
        title: 'Prompt With Image',
        description: 'A prompt with an image (conformance).',
        get: () => ({
          messages: [
            { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
            { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
          ],
        }),
      }),
      definePrompt({
        name: 'test_input_required_result_prompt',
        description: 'Asks for context in an input_required result, then answers (conformance, 2026-07-28).',
        get: (_args, ctx) => {
          const response = inputRetryOf(ctx.params).inputResponses?.user_context as
            | { content?: { context?: unknown } }
            | undefined;
          if (response !== undefined)
            return `Use this context: ${textOf(response.content?.context ?? 'none given')}`;
          return inputRequired({
            inputRequests: {
              user_context: elicit('What context should the prompt use?', { context: { type: 'string' } }, [
                'context',
              ]),
            },
          });
        },
      }),
    ],
    { listenStreams },
  );
}

/** The prompt `test_trigger_prompt_change` adds, then removes. */
const CHANGING_PROMPT: Prompt = definePrompt({
  name: 'test_changing_prompt',
  description: 'Comes and goes with test_trigger_prompt_change (conformance).',
  get: () => 'here for now',
});

/** The hook the 2026-07-28 server-stateless scenario calls to change the prompt list. */
export function promptChangeTool(prompts: PromptList): Tool {
  return defineTool({
    name: 'test_trigger_prompt_change',
    description: 'Adds or removes test_changing_prompt, which changes the prompt list (conformance).',
    input: noInput,
    run: () => {
      if (!prompts.remove(CHANGING_PROMPT.name)) prompts.add(CHANGING_PROMPT);
      return 'the prompt list changed';
    },
  });
}

/** The resources the suite reads and subscribes to by URI, and its template. */
export function conformanceResources(listenStreams: Publisher): ResourceList {
  return new ResourceList(
    [
      defineResource({
        uri: 'test://static-text',
        name: 'static-text',
        title: 'Static Text Resource',
        description: 'A static text resource (conformance).',
        mimeType: 'text/plain',
        read: () => 'This is the content of the static text resource.',
      }),
      defineResource({
        uri: 'test://static-binary',
        name: 'static-binary',
        title: 'Static Binary Resource',
        description: 'A static binary resource, an image (conformance).',
        mimeType: 'image/png',
        read: (uri) => ({ uri, mimeType: 'image/png', blob: PNG }),
      }),
      defineResource({
        uri: 'test://watched-resource',
        name: 'watched-resource',
        title: 'Watched Resource',
        description: 'A resource to subscribe to (conformance).',
        mimeType: 'text/plain',
        read: () => 'Watched resource content',
      }),
      defineResourceTemplate({
        uriTemplate: 'test://template/{id}/data',
        name: 'template',
        title: 'Resource Template',
        description: 'A resource template with parameter substitution (conformance).',
        mimeType: 'application/json',
        read: (uri, { id }) => ({
          uri,
          mimeType: 'application/json',
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        }),
      }),
    ],
    { listenStreams },
  );
}
