// The page's script, bundled for the browser by serve.mjs (esbuild). It talks to examples/server from
// another origin with the fetch-only HttpClient: tools, calls with live progress, Stop, and how each ended.
import { InflightError, JsonRpcError, type Revision } from '@mcp-inflight/core';
import { HttpClient, TRANSPORT_FAILURE_CODE } from '@mcp-inflight/http/fetch';

const query = new URLSearchParams(location.search);
const serverUrl =
  query.get('mcp') ?? document.querySelector<HTMLMetaElement>('meta[name="mcp-url"]')?.content ?? '';
const revision = (query.get('revision') ?? 'auto') as Revision | 'auto';

const $ = <T extends HTMLElement>(selector: string): T => document.querySelector<T>(selector)!;
$('#server-url').textContent = serverUrl;
const select = $<HTMLSelectElement>('#revision');
select.value = revision;
select.addEventListener('change', () => {
  query.set('revision', select.value);
  location.search = query.toString(); // one client per page load, at the chosen revision
});

// A fetch that rejected (not an abort) is all a page ever learns of a refused cross-origin request (403
// without CORS headers) or of a server that is not there. The client reports it as UPSTREAM_CLOSED, so the
// page counts such failures to tell "refused" from a connection that broke after it worked.
let networkFailures = 0;
const client = new HttpClient({
  url: serverUrl,
  revision,
  fetch: (input, init) =>
    globalThis.fetch(input, init).catch((error: unknown) => {
      if (!(error instanceof DOMException && error.name === 'AbortError')) networkFailures++;
      throw error;
    }),
});

/** The words the page shows for how a call ended; `failuresBefore`: `networkFailures` when it started. */
export function endingOf(error: unknown, failuresBefore: number): string {
  if (InflightError.is(error)) {
    if (error.code === 'UPSTREAM_CLOSED' && networkFailures > failuresBefore) return 'refused (network/CORS)';
    switch (error.code) {
      case 'CANCELLED':
        return 'cancelled by you';
      case 'IDLE_TIMEOUT':
        return 'idle limit';
      case 'CEILING':
        return 'ceiling';
      default:
        return 'disconnected'; // DISCONNECTED, UPSTREAM_CLOSED, SHUTDOWN, SESSION_EXPIRED
    }
  }
  // A refusal the page can read (a 403 that carried CORS headers, from a front end, say).
  if (error instanceof JsonRpcError && error.code === TRANSPORT_FAILURE_CODE) {
    const data = (error.data ?? {}) as { httpStatus?: number };
    if (data.httpStatus === 403) return 'refused (network/CORS)';
  }
  return `failed: ${error instanceof Error ? error.message : String(error)}`;
}

async function showTools(): Promise<void> {
  const list = $('#tools');
  const failuresBefore = networkFailures;
  try {
    await client.connect();
    $('#connected').textContent = `connected, ${client.revision}`;
    const { tools } = await client.request<{ tools: Array<{ name: string; description?: string }> }>(
      'tools/list',
    );
    list.replaceChildren(
      ...tools.map((tool) => {
        const item = document.createElement('li');
        item.className = 'tool';
        item.textContent = `${tool.name}: ${tool.description ?? ''}`;
        return item;
      }),
    );
  } catch (error) {
    $('#connected').textContent = endingOf(error, failuresBefore);
  }
}

let calls = 0;

function runWork(steps: number, intervalMs: number, idleMs: number, ceilingMs: number): void {
  const id = ++calls;
  const item = document.createElement('li');
  item.className = 'call';
  item.dataset.call = String(id);
  item.innerHTML =
    '<span class="bar"><span class="fill" style="display:block"></span></span>' +
    '<button type="button" class="stop">Stop</button><span class="ended"></span><span class="message"></span>';
  $('#calls').append(item);
  const fill = item.querySelector<HTMLElement>('.fill')!;
  const message = item.querySelector<HTMLElement>('.message')!;
  const ended = item.querySelector<HTMLElement>('.ended')!;
  const stop = item.querySelector<HTMLButtonElement>('.stop')!;
  const controller = new AbortController();
  const failuresBefore = networkFailures;
  stop.addEventListener('click', () => controller.abort());

  const finish = (words: string): void => {
    ended.textContent = words;
    item.dataset.ended = words;
    stop.disabled = true;
  };
  client
    .callTool(
      'work',
      { steps, intervalMs, tag: `call ${id}` },
      {
        signal: controller.signal,
        idleMs,
        ceilingMs,
        onprogress: ({ progress, total, message: text }) => {
          item.dataset.progress = String(progress);
          if (total !== undefined) {
            item.dataset.total = String(total);
            fill.style.width = `${Math.min(100, (progress / total) * 100)}%`;
          }
          message.textContent = text ?? `${progress}${total === undefined ? '' : ` of ${total}`}`;
        },
      },
    )
    .then(
      (result) => finish(result.isError ? 'tool error' : 'completed'),
      (error: unknown) => finish(endingOf(error, failuresBefore)),
    );
}

$<HTMLFormElement>('#work-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const form = new FormData(event.target as HTMLFormElement);
  const number = (name: string): number => Number(form.get(name));
  runWork(number('steps'), number('intervalMs'), number('idleMs'), number('ceilingMs'));
});

$('#refresh-status').addEventListener('click', () => {
  const out = $('#status');
  const failuresBefore = networkFailures;
  client.callTool('status').then(
    (result) => {
      const text = result.content.find((part) => part.type === 'text')?.text;
      out.textContent = typeof text === 'string' ? text : JSON.stringify(result);
    },
    (error: unknown) => {
      out.textContent = endingOf(error, failuresBefore);
    },
  );
});

void showTools();
