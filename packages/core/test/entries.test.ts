import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every name each entry exports, reviewed. An addition fails here until it is added to this list on
 * purpose: the root entry is what users call, `/adapter` what transport and proxy authors need, and a
 * name belongs to exactly one of them (the core surface issue: about 40 names at the root, at most 35
 * values at runtime). `type X` is a type-only export.
 */
const REVIEWED: Record<string, string[]> = {
  'core/index': [
    'type AudioContent',
    'type CallToolResult',
    'type CancelCode',
    'type CancelMethod',
    'type Clock',
    'type ContentBlock',
    'DeadlineController',
    'type DeadlineOptions',
    'DuplicateTokenError',
    'type EmbeddedResource',
    'Endpoint',
    'type EndpointEvents',
    'type EndpointOptions',
    'type EndpointStats',
    'EraCancelPolicy',
    'eraCancelPolicy',
    'type HandlerLimits',
    'type ImageContent',
    'InflightError',
    'type InflightErrorDetails',
    'isCancel',
    'isRevision',
    'JsonRpcError',
    'JsonRpcErrorCode',
    'type NotificationHandler',
    'ProgressRelay',
    'type ProgressToken',
    'type RequestContext',
    'type RequestHandler',
    'type RequestId',
    'type RequestOptions',
    'type ResourceLink',
    'type Revision',
    'revisionOf',
    'REVISIONS',
    'serveLifecycle',
    'type ServerIdentity',
    'systemClock',
    'type TextContent',
    'type TimerHandle',
    'TokenRegistry',
    'type TransportKind',
    'type UnknownContent',
    'withTimeout',
    'type WithTimeoutOptions',
  ],
  'core/adapter': [
    'Admission',
    'type AdmissionStats',
    'allowsBatches',
    'batchTooLarge',
    'BoundedSet',
    'CANCEL_CODES',
    'type Channel',
    'checkContent',
    'classify',
    'CLIENT_CAPABILITIES_META_KEY',
    'createdTaskOf',
    'declareParamHeaders',
    'declaresTasksExtension',
    'DEFAULT_HTTP_REVISION',
    'DEFAULT_MAX_IN_FLIGHT',
    'DEFAULT_MAX_QUEUED_BYTES',
    'type Direction',
    'type EmbeddedBlob',
    'type EmbeddedText',
    'errorResponse',
    'errorResponseFor',
    'expectCapability',
    'filterFor',
    'filterWants',
    'hasStreamableHttp',
    'hasTask',
    'IdTable',
    'inflightErrorFromJsonRpc',
    'isEmptyFilter',
    'isLegacy',
    'isTerminalStatus',
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
    'linkSignal',
    'LIST_CHANGED',
    'LISTEN_ACK_METHOD',
    'LISTEN_METHOD',
    'type ListenFilter',
    'MAX_TIMER_MS',
    'metaVersionOf',
    'MODERN_REVISION',
    'type Nap',
    'nap',
    'negotiateLegacy',
    'offeredBy',
    'type ParamHeader',
    'paramHeaderMismatch',
    'paramHeadersOf',
    'paramHeaderValue',
    'pause',
    'piecesLength',
    'type ProgressParams',
    'type ProgressRoute',
    'PROTOCOL_VERSION_META_KEY',
    'QUEUED_REQUEST_OVERHEAD_BYTES',
    'QuietTimer',
    'RELATED_TASK_META_KEY',
    'relayedParams',
    'RESOURCE_UPDATED',
    'resultResponse',
    'type Role',
    'type SendIntent',
    'servedParamHeaders',
    'SERVER_INFO_META_KEY',
    'settleWithin',
    'SUBSCRIPTION_ID_META_KEY',
    'type TaskFields',
    'type TaskRouteHooks',
    'TASKS_EXTENSION',
    'type TaskState',
    'taskStateOf',
    'type TaskStatus',
    'TimerQueue',
    'withTasksExtension',
    'X_MCP_HEADER',
  ],
  'core/testing': ['ManualClock'],
  'core/schemas': [
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
  'client/index': [
    'type CacheHints',
    'type ClientIdentity',
    'type ClientTransport',
    'connectLifecycle',
    'type ConnectOptions',
    'LifecycleClient',
    'type LifecycleHooks',
    'type McpClient',
    'NegotiationError',
    'NO_CACHING',
    'type ServerHandshake',
  ],
  'client/tasks': [
    'callTask',
    'IdleWindow',
    'isTerminalStatus',
    'type TaskCallOptions',
    'type TaskErrorDetails',
    'type TaskState',
    'type TaskStatus',
  ],
  'client/input': [
    'callToolWithInput',
    'checkInputRequired',
    'INPUT_METHODS',
    'INPUT_REQUIRED_METHODS',
    'INPUT_ROUNDS_EXCEEDED',
    'type InputCapableClient',
    'type InputHandler',
    'type InputMethod',
    'type InputRequest',
    'type InputRequestOptions',
    'type InputRequests',
    'type InputRequiredResult',
    'type InputResponses',
    'type InputRound',
    'isInputRequired',
    'requestWithInput',
  ],
  'server/index': [
    'type CacheHints',
    'type Completer',
    'createServer',
    'type CreateServerOptions',
    'definePrompt',
    'defineResource',
    'defineResourceTemplate',
    'defineTool',
    'type GetPromptResult',
    'type McpServer',
    'NO_CACHING',
    'type Prompt',
    'type PromptDefinition',
    'PromptList',
    'type PromptMessage',
    'type PromptOutput',
    'type Publisher',
    'type Resource',
    'type ResourceContents',
    'type ResourceDefinition',
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
    'type Tool',
    'type ToolDefinition',
    'ToolList',
    'type ToolOutput',
  ],
  'server/tasks': [
    'declaresTasksExtension',
    'isTerminalStatus',
    'RELATED_TASK_META_KEY',
    'serveTasks',
    'type ServeTasksOptions',
    'type SharedTaskStore',
    'taskCapabilities',
    'type TaskChange',
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
  'server/input': [
    'bindingOf',
    'checkInputRequired',
    'clientSupports',
    'elicit',
    'INPUT_METHODS',
    'INPUT_REQUIRED_METHODS',
    'type InputMethod',
    'type InputRequest',
    'type InputRequests',
    'inputRequired',
    'type InputRequiredResult',
    'type InputResponses',
    'type InputRetry',
    'inputRetryOf',
    'isInputRequired',
    'MAX_REQUEST_STATE_CHARS',
    'RequestStateSigner',
    'type RequestStateSignerOptions',
    'type StateBinding',
  ],
  'server/listen': ['ListenStreams', 'type ListenStreamsOptions', 'type ListenStreamsStats'],
  'server/stats': [
    'type EndpointTables',
    'LiveEndpoints',
    'type ProcessStats',
    'processStats',
    'serveStats',
    'STATS_METHOD',
    'tablesOf',
    'wantsGc',
  ],
  'server/testing': [
    'type ContractRunner',
    'taskStoreContract',
    'type TaskStoreContractOptions',
    'type TaskStoreSettings',
  ],
};

/** `core/adapter` -> the entry's source file, relative to this test. */
function fileOf(entry: string): string {
  const [pkg, name] = entry.split('/');
  return `../../${pkg}/src/${name}.ts`;
}

/** The names an entry file exports, read from its source (types included, which runtime keys miss). */
function exportsOf(entry: string): string[] {
  const source = readFileSync(new URL(fileOf(entry), import.meta.url), 'utf8');
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
      const runtime = Object.keys(await import(fileOf(entry))).sort();
      const values = reviewed.filter((name) => !name.startsWith('type ')).sort();
      expect(runtime).toEqual(values);
    });
  }

  it('the root keeps to what users call: at most 35 values, about 40 names with the types', () => {
    const root = REVIEWED['core/index'] ?? [];
    expect(root.filter((name) => !name.startsWith('type ')).length).toBeLessThanOrEqual(35);
    expect(root.length).toBeLessThanOrEqual(45);
  });

  it('no name is on both the root and /adapter', () => {
    const root = new Set((REVIEWED['core/index'] ?? []).map((name) => name.replace('type ', '')));
    expect((REVIEWED['core/adapter'] ?? []).filter((name) => root.has(name.replace('type ', '')))).toEqual(
      [],
    );
  });
});

describe('core/adapter', () => {
  it('exports only what a package outside core imports (its src or its tests)', () => {
    const root = new URL('../../', import.meta.url);
    const used = new Set<string>();
    const walk = (dir: URL): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.name === 'node_modules' || entry.name === 'dist') continue;
        const url = new URL(`${entry.name}${entry.isDirectory() ? '/' : ''}`, dir);
        if (entry.isDirectory()) walk(url);
        else if (/\.(ts|mjs)$/.test(entry.name)) {
          const text = readFileSync(url, 'utf8');
          for (const m of text.matchAll(
            /(?:import|export)\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'@mcp-inflight\/core\/adapter'/g,
          ))
            for (const raw of (m[1] ?? '').split(','))
              used.add(
                raw
                  .trim()
                  .replace(/^type\s+/, '')
                  .split(' as ')[0] ?? '',
              );
        }
      }
    };
    for (const pkg of readdirSync(root)) if (pkg !== 'core') walk(new URL(`${pkg}/`, root));
    const names = (REVIEWED['core/adapter'] ?? []).map((name) => name.replace('type ', ''));
    expect(names.filter((name) => !used.has(name))).toEqual([]);
  });
});
