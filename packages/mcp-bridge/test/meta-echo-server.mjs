#!/usr/bin/env node
// A stdio MCP server on the official server SDK (v1) whose one tool, `meta`, answers with the
// `_meta` its `tools/call` request carried, as JSON text: what a real server receives.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const server = new Server({ name: 'meta-echo', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: 'meta',
      description: 'Answers with the request _meta',
      inputSchema: { type: 'object' },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => ({
  content: [{ type: 'text', text: JSON.stringify(request.params._meta ?? null) }],
}));
await server.connect(new StdioServerTransport());
