import { ToolErrorCode as Codes } from '@dsh-tools/protocol';
import { quote } from './describe';
import { failure, seenOfRequest } from './results';
import { closestNames } from './suggest';
import type { CallRequest, Failed, RegisteredTool } from './types';

/**
 * The stage *resolve the tool*: the registered entry of the name the call gives, or `UNKNOWN_TOOL`
 * naming up to three closest registered names, so that a model fixes a typo in one retry.
 */
export function resolveTool(
  tools: ReadonlyMap<string, RegisteredTool>,
  request: CallRequest,
): RegisteredTool | Failed {
  const entry = tools.get(request.name);
  if (entry) return entry;
  const name = quote(request.name);
  const suggestions = closestNames(request.name, tools.keys());
  return failure(
    seenOfRequest(request),
    Codes.UNKNOWN_TOOL,
    suggestions.length > 0
      ? `Unknown tool ${name}. Did you mean ${suggestions.map((s) => `"${s}"`).join(' or ')}? Call a tool by its exact name.`
      : `Unknown tool ${name}: no tool of that name is registered (${tools.size === 1 ? '1 tool is' : `${tools.size} tools are`}). Call one of the tools you were given.`,
    { suggestions },
  );
}
