/**
 * Content blocks, aligned one to one with the MCP content types so that the MCP bridge maps a
 * server's content without loss and a host renders local and remote tools the same way.
 */

/** Optional hints about who a block is for and how much it matters (MCP `Annotations`). */
export interface ContentAnnotations {
  readonly audience?: readonly ('user' | 'assistant')[];
  readonly priority?: number;
  readonly lastModified?: string;
}

/** Fields every block may carry. `_meta` is passed through untouched, as MCP does. */
interface BlockBase {
  readonly annotations?: ContentAnnotations;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Plain text, the block every model understands. */
export interface TextContent extends BlockBase {
  readonly type: 'text';
  readonly text: string;
}

/** An image as base64 `data` (no `data:` prefix) with its MIME type. */
export interface ImageContent extends BlockBase {
  readonly type: 'image';
  readonly data: string;
  readonly mimeType: string;
}

/** Audio as base64 `data` with its MIME type. */
export interface AudioContent extends BlockBase {
  readonly type: 'audio';
  readonly data: string;
  readonly mimeType: string;
}

/** A pointer to a resource the host may fetch; the content itself is not included. */
export interface ResourceLinkContent extends BlockBase {
  readonly type: 'resource_link';
  readonly uri: string;
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly mimeType?: string;
  readonly size?: number;
}

/** Text contents of an embedded resource. */
export interface TextResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly text: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Binary contents of an embedded resource, base64 in `blob`. */
export interface BlobResourceContents {
  readonly uri: string;
  readonly mimeType?: string;
  readonly blob: string;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** A resource embedded in the result, as text or as a base64 blob. */
export interface EmbeddedResourceContent extends BlockBase {
  readonly type: 'resource';
  readonly resource: TextResourceContents | BlobResourceContents;
}

/** Any block a tool may return. */
export type ContentBlock =
  | TextContent
  | ImageContent
  | AudioContent
  | ResourceLinkContent
  | EmbeddedResourceContent;
