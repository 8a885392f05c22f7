// The example MCP server of the embedded default config, started over stdio by `dsh-tools` when
// no config file is given (`node dist/example-server.mjs`). A small, real server on the official
// SDK: a notebook kept in memory for the life of the process, so a newcomer can add a note and
// find it again with nothing else installed.
import { setTimeout as sleep } from 'node:timers/promises';
import { deflateSync } from 'node:zlib';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

interface Note {
  readonly id: number;
  readonly title: string;
  readonly text: string;
  readonly tags: readonly string[];
}

const notes: Note[] = [
  {
    id: 1,
    title: 'Welcome',
    text: 'This note comes from the example MCP server that dsh-tools starts when it has no config.',
    tags: ['dsh-tools'],
  },
];

// CRC-32 (the PNG chunk checksum); zlib.crc32 is newer than the Node 20 this package supports.
const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A note's card as a PNG: a band of colour taken from its title, one stripe per tag, so that an
 * MCP client has a real image result to show. Small on purpose (a few hundred bytes).
 */
function noteCard(note: Note, width: number, height: number): Buffer {
  let hash = 0;
  for (const ch of note.title) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
  const base = [hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff] as const;
  const stripes = Math.max(1, note.tags.length);
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((y * stripes) / height) % 2 === 1;
      const shade = Math.round((x / Math.max(1, width - 1)) * 96);
      for (let i = 0; i < 3; i++) {
        row[1 + x * 3 + i] = Math.min(255, (stripe ? 255 - base[i]! : base[i]!) + shade);
      }
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const render = (note: Note) =>
  `#${note.id} ${note.title}${note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : ''}\n${note.text}`;

serveStdio(() => {
  const server = new McpServer({ name: 'dsh-tools-example-notes', version: '1.0.0' });
  server.registerTool(
    'add_note',
    {
      description: 'Adds a note to the notebook and returns its id.',
      inputSchema: z.object({
        title: z.string().min(1).max(200).describe('A short title'),
        text: z.string().max(10_000).describe('The body of the note'),
        tags: z
          .array(z.string().min(1).max(40))
          .max(10)
          .optional()
          .describe('Labels to find it by'),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    async ({ title, text, tags }) => {
      const note: Note = { id: notes.length + 1, title, text, tags: tags ?? [] };
      notes.push(note);
      return {
        content: [{ type: 'text', text: `Added note #${note.id}.` }],
        structuredContent: { id: note.id },
      };
    },
  );
  server.registerTool(
    'search_notes',
    {
      description: 'Finds notes whose title, text or tags contain the query (case-insensitive).',
      inputSchema: z.object({ query: z.string().min(1).max(200).describe('Words to look for') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query }) => {
      const q = query.toLowerCase();
      const found = notes.filter((n) =>
        [n.title, n.text, ...n.tags].some((field) => field.toLowerCase().includes(q)),
      );
      return {
        content: [
          {
            type: 'text',
            text: found.length > 0 ? found.map(render).join('\n\n') : `No note matches "${query}".`,
          },
        ],
      };
    },
  );
  server.registerTool(
    'get_note',
    {
      description: 'Returns one note by its id.',
      inputSchema: z.object({ id: z.number().int().min(1).describe('The id add_note returned') }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id }) => {
      const note = notes.find((n) => n.id === id);
      if (!note) {
        return {
          isError: true,
          content: [
            {
              type: 'text',
              text: `There is no note #${id}; search_notes lists the notes there are.`,
            },
          ],
        };
      }
      return { content: [{ type: 'text', text: render(note) }] };
    },
  );
  server.registerTool(
    'note_card',
    {
      description:
        "Draws a note's card as a PNG image (a colour from its title, a stripe per tag).",
      inputSchema: z.object({
        id: z.number().int().min(1).describe('The id add_note returned'),
        width: z.number().int().min(8).max(512).optional().describe('Pixels, default 96'),
        height: z.number().int().min(8).max(512).optional().describe('Pixels, default 48'),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ id, width, height }) => {
      const note = notes.find((n) => n.id === id);
      if (!note) {
        return {
          isError: true,
          content: [{ type: 'text', text: `There is no note #${id}; search_notes lists them.` }],
        };
      }
      const png = noteCard(note, width ?? 96, height ?? 48);
      return {
        content: [
          { type: 'text', text: `The card of note #${note.id} "${note.title}":` },
          { type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
        ],
      };
    },
  );
  server.registerTool(
    'wait',
    {
      description:
        'Waits the given milliseconds, then answers: a slow tool to try timeouts and cancellation with.',
      inputSchema: z.object({
        ms: z.number().int().min(0).max(60_000).describe('How long to wait'),
      }),
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ ms }, ctx) => {
      await sleep(ms, undefined, { signal: ctx.mcpReq.signal });
      return { content: [{ type: 'text', text: `Waited ${ms} ms.` }] };
    },
  );
  return server;
});
