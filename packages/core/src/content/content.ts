/**
 * A text block of a tool result (or of a prompt message, or an embedded resource's `text`).
 *
 * @example
 * ```ts
 * import type { TextContent } from '@mcp-inflight/core';
 * const block: TextContent = { type: 'text', text: 'done' };
 * ```
 */
export interface TextContent {
  /** The block's kind. */
  type: 'text';
  /** The text. */
  text: string;
  /** The spec's annotations (audience, priority, last modified). */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * An image block: base64 `data` and its `mimeType`.
 *
 * @example
 * ```ts
 * import type { ImageContent } from '@mcp-inflight/core';
 * const block: ImageContent = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };
 * ```
 */
export interface ImageContent {
  /** The block's kind. */
  type: 'image';
  /** Base64-encoded bytes. */
  data: string;
  /** The media type of `data`. */
  mimeType: string;
  /** The spec's annotations (audience, priority, last modified). */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * An audio block (2025-03-26 on): base64 `data` and its `mimeType`.
 *
 * @example
 * ```ts
 * import type { AudioContent } from '@mcp-inflight/core';
 * const block: AudioContent = { type: 'audio', data: 'UklGRg==', mimeType: 'audio/wav' };
 * ```
 */
export interface AudioContent {
  /** The block's kind. */
  type: 'audio';
  /** Base64-encoded bytes. */
  data: string;
  /** The media type of `data`. */
  mimeType: string;
  /** The spec's annotations (audience, priority, last modified). */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A link to a resource the client may read (2025-06-18 on).
 *
 * @example
 * ```ts
 * import type { ResourceLink } from '@mcp-inflight/core';
 * const block: ResourceLink = { type: 'resource_link', uri: 'file:///report.md', name: 'report.md' };
 * ```
 */
export interface ResourceLink {
  /** The block's kind. */
  type: 'resource_link';
  /** The resource's URI. */
  uri: string;
  /** The resource's name. */
  name: string;
  /** A title for display. */
  title?: string;
  /** What the resource is. */
  description?: string;
  /** Its media type, when known. */
  mimeType?: string;
  /** Its size in bytes, when known. */
  size?: number;
  /** The spec's annotations (audience, priority, last modified). */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** Text contents of an embedded resource. */
export interface EmbeddedText {
  /** The resource's URI. */
  uri: string;
  /** Its media type, when known. */
  mimeType?: string;
  /** The text. */
  text: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/** Binary contents of an embedded resource. */
export interface EmbeddedBlob {
  /** The resource's URI. */
  uri: string;
  /** Its media type, when known. */
  mimeType?: string;
  /** Base64-encoded bytes. */
  blob: string;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A resource's contents embedded in the result: `text` or base64 `blob`.
 *
 * @example
 * ```ts
 * import type { EmbeddedResource } from '@mcp-inflight/core';
 * const block: EmbeddedResource = { type: 'resource', resource: { uri: 'file:///a.txt', text: 'hello' } };
 * ```
 */
export interface EmbeddedResource {
  /** The block's kind. */
  type: 'resource';
  /** The contents: `text`, or base64 `blob`. */
  resource: EmbeddedText | EmbeddedBlob;
  /** The spec's annotations (audience, priority, last modified). */
  annotations?: Record<string, unknown>;
  /** Extra metadata. */
  _meta?: Record<string, unknown>;
}

/**
 * A block a peer sent that is none of the spec's kinds, or one of them without its required fields. A
 * client never hands such a block on as if it were well formed: `callTool` replaces it with this, keeping
 * what was sent in `block`, so `content[i].type === 'text'` always means `.text` is a string.
 *
 * @example
 * ```ts
 * import type { UnknownContent } from '@mcp-inflight/core';
 * const block: UnknownContent = { type: 'unknown', block: { type: 'video', url: 'https://example.com/v' } };
 * ```
 */
export interface UnknownContent {
  /** Always `'unknown'`: not a kind the spec defines, or malformed. */
  type: 'unknown';
  /** The block as the peer sent it. */
  block: unknown;
}

/**
 * One block of a tool result: the spec's union (text, image, audio, resource link, embedded resource).
 * `type` narrows it. A block received from a peer may also be an {@link UnknownContent}.
 *
 * @example
 * ```ts
 * import type { ContentBlock } from '@mcp-inflight/core';
 * declare const block: ContentBlock;
 * if (block.type === 'text') console.log(block.text.length); // `text` is a string here
 * ```
 */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/**
 * A `tools/call` result as every revision shapes it. A tool builds one with {@link ContentBlock}s; the
 * one `callTool` returns may also hold {@link UnknownContent} in place of a block of a kind it does not
 * know or a malformed one. `structuredContent` is a JSON object up to
 * 2025-11-25 and any JSON value on 2026-07-28, so it is typed `unknown` and read after a check.
 *
 * @example
 * ```ts
 * import type { CallToolResult } from '@mcp-inflight/core';
 * declare const result: CallToolResult; // what a client's callTool resolves to
 * const first = result.content[0];
 * if (first?.type === 'text') console.log(first.text.toUpperCase());
 * if (result.isError) console.error('the tool failed:', result.content);
 * ```
 */
export interface CallToolResult {
  /** The result's content blocks, each with its `type`. */
  content: Array<ContentBlock | UnknownContent>;
  /** Structured output, checked against the tool's `outputSchema` when it declares one. */
  structuredContent?: unknown;
  /** A tool execution error the model should see (not a protocol error). */
  isError?: boolean;
  /** The result's `_meta`, as the server sent it. */
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

const str = (v: unknown): boolean => typeof v === 'string';
/** The fields a block's check reads (named, so strict index-signature access holds when vendored). */
type Fields = { [K in 'text' | 'data' | 'mimeType' | 'uri' | 'name' | 'blob' | 'resource']?: unknown };
const FIELDS: Record<string, (b: Fields) => boolean> = {
  text: (b) => str(b.text),
  image: (b) => str(b.data) && str(b.mimeType),
  audio: (b) => str(b.data) && str(b.mimeType),
  resource_link: (b) => str(b.uri) && str(b.name),
  resource: (b) => {
    const r = b.resource as Fields | null;
    return typeof r === 'object' && r !== null && str(r.uri) && (str(r.text) || str(r.blob));
  },
};

/**
 * Checks a block a peer sent: a well-formed block of a known kind comes back as it is; any other value
 * (an unknown `type`, a missing or mistyped required field, not an object) comes back as an
 * {@link UnknownContent} holding it. `callTool` applies it to every block; the tool layer refuses a
 * tool's result with such a block. Internal: not on any entry.
 */
export function checkContent(block: unknown): ContentBlock | UnknownContent {
  const b = block as (Fields & { type?: unknown }) | null;
  const known = typeof b === 'object' && b !== null && Object.hasOwn(FIELDS, b.type as string);
  return known && FIELDS[b.type as string]!(b) ? (b as unknown as ContentBlock) : { type: 'unknown', block };
}
