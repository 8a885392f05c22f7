import type { AuthInfo } from '@modelcontextprotocol/server';

/**
 * Who a session belongs to: the client and, for an OAuth token, its subject (the user), so that
 * two people using one OAuth client never share a session, an approval or a sealed state.
 */
export const principalOf = (authInfo: AuthInfo | undefined): string | undefined => {
  const principal = authInfo?.extra?.principal;
  return typeof principal === 'string' ? principal : authInfo?.clientId;
};
