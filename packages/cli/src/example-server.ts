// The example MCP server of the embedded default config, started over stdio by `dsh-tools` when
// no config file is given (`node dist/example-server.mjs`). A small, real server on the official
// SDK: a notebook kept in memory for the life of the process, so a newcomer can add a note and
// find it again with nothing else installed.
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
  return server;
});
