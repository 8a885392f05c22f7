#!/usr/bin/env node
// A small MCP server for the demo: one tool over stdio, built on the official MCP server SDK, as a
// third-party server would be. The app starts it as a child process through the McpServer plugin.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const EVENTS = {
  work: 'stand-up, 10:00, room 4',
  home: 'dentist, 17:30',
};

const server = new Server({ name: 'calendar', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'next_event',
      description: 'The next event of a calendar.',
      inputSchema: {
        type: 'object',
        properties: { calendar: { type: 'string', enum: Object.keys(EVENTS) } },
        required: ['calendar'],
      },
      annotations: { readOnlyHint: true },
    },
  ],
}));

server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const calendar = String(request.params.arguments?.calendar);
  const event = Object.hasOwn(EVENTS, calendar) ? EVENTS[calendar] : undefined;
  return event === undefined
    ? { content: [{ type: 'text', text: `no calendar named "${calendar}"` }], isError: true }
    : { content: [{ type: 'text', text: event }] };
});

await server.connect(new StdioServerTransport());
