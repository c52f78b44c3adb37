/**
 * The URL of an operation of an OpenAI-compatible endpoint, from the base URL the operator set
 * (GLEANER_STT_URL, GLEANER_LLM_URL): the operation's path goes after the base's path, and the base's
 * query and fragment stay where they belong. Some gateways want a query on every call (Azure
 * OpenAI's `?api-version=`, a proxy's token): `https://gw/v1?api-version=2024-10-21` with
 * `/chat/completions` is `https://gw/v1/chat/completions?api-version=2024-10-21`, not a path glued
 * after the query.
 */
export function endpointUrl(baseUrl: string, operation: string): string {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${operation.replace(/^\/+/, '')}`;
  // A fragment is never sent; one in the base is a slip, not part of the endpoint.
  url.hash = '';
  return url.href;
}
