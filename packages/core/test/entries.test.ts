import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every name each entry exports, reviewed. An addition fails here until it is added to this list on
 * purpose: the root entry is what users call, `/adapter` what transport and proxy authors need, and a
 * name belongs to exactly one of them (the core surface issue: about 40 names at the root, at most 35
 * values at runtime). `type X` is a type-only export.
 */
const REVIEWED: Record<string, string[]> = {
  index: [
    'type CallToolResult',
    'type CancelCode',
    'type CancelMethod',
    'type ClientIdentity',
    'type Clock',
    'connectLifecycle',
    'type ConnectOptions',
    'type ContentBlock',
    'DeadlineController',
    'type DeadlineOptions',
    'DuplicateTokenError',
    'Endpoint',
    'type EndpointEvents',
    'type EndpointOptions',
    'type EndpointStats',
    'EraCancelPolicy',
    'eraCancelPolicy',
    'type HandlerLimits',
    'InflightError',
    'type InflightErrorDetails',
    'isCancel',
    'isRevision',
    'JsonRpcError',
    'JsonRpcErrorCode',
    'type McpClient',
    'NegotiationError',
    'type NotificationHandler',
    'ProgressRelay',
    'type ProgressToken',
    'type RequestContext',
    'type RequestHandler',
    'type RequestId',
    'type RequestOptions',
    'type Revision',
    'revisionOf',
    'REVISIONS',
    'serveLifecycle',
    'type ServerIdentity',
    'systemClock',
    'type TimerHandle',
    'TokenRegistry',
    'type TransportKind',
    'type UnknownContent',
    'withTimeout',
    'type WithTimeoutOptions',
  ],
  adapter: [
    'Admission',
    'type AdmissionOptions',
    'type AdmissionState',
    'type AdmissionStats',
    'type AdmissionTicket',
    'allowsBatches',
    'batchTooLarge',
    'BoundedSet',
    'CANCEL_CODES',
    'type CancelledParams',
    'type Channel',
    'type Classified',
    'classify',
    'CLIENT_CAPABILITIES_META_KEY',
    'CLIENT_INFO_META_KEY',
    'type ClientTransport',
    'copyWith',
    'createdTaskOf',
    'declareParamHeaders',
    'DEFAULT_HTTP_REVISION',
    'DEFAULT_MAX_BATCH_ELEMENTS',
    'DEFAULT_MAX_IN_FLIGHT',
    'DEFAULT_MAX_QUEUED_BYTES',
    'DEFAULT_MIN_INTERVAL_MS',
    'type Direction',
    'type DropReason',
    'errorResponse',
    'errorResponseFor',
    'hasProgressMessage',
    'hasStreamableHttp',
    'hasTask',
    'IdleWindow',
    'IdTable',
    'inflightErrorFromJsonRpc',
    'isCancelledParams',
    'isLegacy',
    'isProgressParams',
    'isTokenOrId',
    'type JsonPiece',
    'jsonPieces',
    'JSONRPC_CODE_BY_CAUSE',
    'type JsonRpcErrorObject',
    'type JsonRpcMessage',
    'type KeepStrings',
    'keepStrings',
    'KeptString',
    'LATEST_LEGACY_REVISION',
    'LifecycleClient',
    'type LifecycleHooks',
    'MAX_TIMER_MS',
    'metaOf',
    'metaVersionOf',
    'MODERN_REVISION',
    'negotiateLegacy',
    'type OutboundRequest',
    'type Outcome',
    'OVERLOADED_MESSAGE',
    'type ParamHeader',
    'paramHeaderMismatch',
    'type ParamHeaders',
    'paramHeadersOf',
    'paramHeaderValue',
    'pause',
    'piecesLength',
    'type PolicyAnswer',
    'type ProgressParams',
    'type ProgressRelayEvents',
    'type ProgressRelayStats',
    'type ProgressRoute',
    'PROTOCOL_VERSION_META_KEY',
    'QUEUED_REQUEST_OVERHEAD_BYTES',
    'type QueuedTimer',
    'QuietTimer',
    'relayedParams',
    'resultResponse',
    'revisionOfHeader',
    'type Role',
    'type RouteOptions',
    'type SendIntent',
    'servedParamHeaders',
    'SERVER_INFO_META_KEY',
    'type ServerHandshake',
    'settleWithin',
    'type TaskContext',
    'type TaskRouteHooks',
    'taskStateOf',
    'TimerQueue',
    'timersOf',
    'X_MCP_HEADER',
  ],
  stats: [
    'type EndpointTables',
    'LiveEndpoints',
    'type ProcessStats',
    'processStats',
    'serveStats',
    'STATS_METHOD',
    'tablesOf',
    'wantsGc',
  ],
  testing: [
    'type ContractRunner',
    'ManualClock',
    'taskStoreContract',
    'type TaskStoreContractOptions',
    'type TaskStoreSettings',
  ],
  schemas: [
    'cancelledNotificationSchema',
    'type CancelledParams',
    'cancelledParamsSchema',
    'progressNotificationSchema',
    'type ProgressParams',
    'progressParamsSchema',
    'type ProgressToken',
    'progressTokenSchema',
    'type RequestId',
    'requestIdSchema',
  ],
  tools: [
    'type AudioContent',
    'type CacheHints',
    'type Completer',
    'createServer',
    'type CreateServerOptions',
    'definePrompt',
    'defineResource',
    'defineResourceTemplate',
    'defineTool',
    'type EmbeddedResource',
    'type GetPromptResult',
    'type ImageContent',
    'type McpServer',
    'type Prompt',
    'type PromptDefinition',
    'PromptList',
    'type PromptMessage',
    'type PromptOutput',
    'type Publisher',
    'type Resource',
    'type ResourceContents',
    'type ResourceDefinition',
    'type ResourceLink',
    'ResourceList',
    'type ResourceOutput',
    'type ResourceTemplate',
    'type ResourceTemplateDefinition',
    'type ServedTools',
    'servePrompts',
    'type ServePromptsOptions',
    'serveResources',
    'type ServeResourcesOptions',
    'serveTools',
    'type ServeToolsOptions',
    'type TextContent',
    'type Tool',
    'type ToolDefinition',
    'ToolList',
    'type ToolOutput',
  ],
  listen: [
    'LISTEN_ACK_METHOD',
    'LISTEN_METHOD',
    'Listeners',
    'type ListenersOptions',
    'type ListenersStats',
    'type ListenFilter',
    'SUBSCRIPTION_ID_META_KEY',
  ],
  tasks: [
    'callTask',
    'declaresTasksExtension',
    'isTerminalStatus',
    'RELATED_TASK_META_KEY',
    'serveTasks',
    'type ServeTasksOptions',
    'type SharedTaskStore',
    'type TaskCallOptions',
    'taskCapabilities',
    'type TaskChange',
    'type TaskErrorDetails',
    'type TaskOutcome',
    'type TaskRecord',
    'TASKS_EXTENSION',
    'type TaskState',
    'type TaskStatus',
    'taskSteps',
    'TaskStore',
    'type TaskStoreOptions',
    'withTasksExtension',
  ],
  mrtr: [
    'bindingOf',
    'callToolWithInput',
    'checkInputRequired',
    'clientSupports',
    'elicit',
    'INPUT_METHODS',
    'INPUT_REQUIRED_METHODS',
    'INPUT_ROUNDS_EXCEEDED',
    'type InputCapableClient',
    'type InputHandler',
    'type InputMethod',
    'type InputRequest',
    'type InputRequestOptions',
    'type InputRequests',
    'inputRequired',
    'type InputRequiredResult',
    'type InputResponses',
    'type InputRetry',
    'inputRetryOf',
    'type InputRound',
    'isInputRequired',
    'MAX_REQUEST_STATE_CHARS',
    'RequestStateSigner',
    'type RequestStateSignerOptions',
    'requestWithInput',
    'type StateBinding',
  ],
};

/** The names an entry file exports, read from its source (types included, which runtime keys miss). */
function exportsOf(entry: string): string[] {
  const source = readFileSync(new URL(`../src/${entry}.ts`, import.meta.url), 'utf8');
  const names: string[] = [];
  for (const match of source.matchAll(/export\s+(type\s+)?\{([^}]*)\}/g)) {
    for (const raw of (match[2] ?? '').split(',')) {
      const part = raw.trim();
      if (!part) continue;
      const typeOnly = match[1] !== undefined || part.startsWith('type ');
      const name =
        part
          .replace(/^type\s+/, '')
          .split(' as ')
          .pop()
          ?.trim() ?? part;
      names.push(typeOnly ? `type ${name}` : name);
    }
  }
  return names.sort((a, b) =>
    a.replace('type ', '').toLowerCase().localeCompare(b.replace('type ', '').toLowerCase()),
  );
}

describe('entry exports', () => {
  for (const [entry, reviewed] of Object.entries(REVIEWED)) {
    it(`${entry} exports exactly its reviewed names`, async () => {
      expect(exportsOf(entry)).toEqual(reviewed);
      const runtime = Object.keys(await import(`../src/${entry}.ts`)).sort();
      const values = reviewed.filter((name) => !name.startsWith('type ')).sort();
      expect(runtime).toEqual(values);
    });
  }

  it('the root keeps to what users call: at most 35 values, about 40 names with the types', () => {
    const root = REVIEWED.index ?? [];
    expect(root.filter((name) => !name.startsWith('type ')).length).toBeLessThanOrEqual(35);
    expect(root.length).toBeLessThanOrEqual(45);
  });

  it('no name is on both the root and /adapter', () => {
    const root = new Set((REVIEWED.index ?? []).map((name) => name.replace('type ', '')));
    expect((REVIEWED.adapter ?? []).filter((name) => root.has(name.replace('type ', '')))).toEqual([]);
  });
});
