/**
 * The OAuth clients Gleaner knows: those registered through dynamic client registration (RFC 7591),
 * kept in the store, and those whose client_id is the https URL of a Client ID Metadata Document,
 * fetched through net/ (the SSRF guard applies: the URL is the caller's choice) and cached briefly.
 *
 * Registration is open, as MCP clients expect, so an unused registration expires after a day; one
 * that a person approved is kept as long as its grants (see OAuthTokens.approve).
 */
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { Store } from '../store/store.js';
import type { HttpClient } from '../net/http.js';
import { GleanerError } from '../errors.js';
import { hashApiKey } from './accounts.js';
import { OAuthError } from './oauth-errors.js';
import { redirectUriProblem } from './oauth-redirects.js';

export const TOKEN_AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type TokenAuthMethod = (typeof TOKEN_AUTH_METHODS)[number];

export interface OAuthClient {
  clientId: string;
  /** What the sign-in page names the client by (the client's own claim; the page also shows where it sends you). */
  clientName: string;
  redirectUris: string[];
  tokenEndpointAuthMethod: TokenAuthMethod;
  /** SHA-256 of the client secret, for confidential clients. */
  secretHash?: string;
  source: 'registered' | 'metadata-document';
  createdAt: string;
}

const UNUSED_REGISTRATION_MS = 24 * 3600_000;
const METADATA_DOCUMENT_CACHE_MS = 5 * 60_000;
const METADATA_DOCUMENT_MAX_BYTES = 16 * 1024;
/** All redirect URIs of one client together: what a registration keeps is bounded (a few KB), not 10 × 2,000 characters. */
const REDIRECT_URIS_MAX_CHARS = 4_000;
/** The largest registration body read (RFC 7591 metadata is a few hundred bytes). */
export const REGISTRATION_MAX_BYTES = 16 * 1024;

const clientKey = (clientId: string) => `oauth:client:${clientId}`;
const documentKey = (url: string) => `oauth:cimd:${hashApiKey(url)}`;

/** The fields of RFC 7591 section 2 that Gleaner uses; others are accepted and ignored. */
const RegistrationSchema = z.object({
  redirect_uris: z
    .array(z.string())
    .min(1, 'redirect_uris must list at least one URI')
    .max(10, 'at most 10 redirect_uris')
    .refine((uris) => uris.reduce((sum, uri) => sum + uri.length, 0) <= REDIRECT_URIS_MAX_CHARS, `the redirect_uris together are longer than ${REDIRECT_URIS_MAX_CHARS} characters`),
  client_name: z.string().trim().max(200).optional(),
  token_endpoint_auth_method: z.string().optional(),
  grant_types: z.array(z.string()).max(5).optional(),
  response_types: z.array(z.string()).max(5).optional(),
  scope: z.string().max(1_000).optional(),
  client_uri: z.string().max(2_000).optional(),
});

const MetadataDocumentSchema = RegistrationSchema.extend({ client_id: z.string() });

export type RegistrationRequest = z.infer<typeof RegistrationSchema>;

/** True when a client_id names a Client ID Metadata Document (an https URL with a path). */
export function isMetadataDocumentId(clientId: string): boolean {
  if (!clientId.startsWith('https://') || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return url.pathname !== '/' && !url.hash && !url.username && !url.password;
}

/** Checks the metadata a client sends (or publishes) and returns it as a client, or invalid_client_metadata / invalid_redirect_uri. */
function clientFrom(body: unknown, clientId: string, source: OAuthClient['source'], now: Date): { client: OAuthClient; raw: RegistrationRequest } {
  const parsed = (source === 'registered' ? RegistrationSchema : MetadataDocumentSchema).safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue.path.join('.') || 'body';
    const code = field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata';
    throw new OAuthError(code, `${field}: ${issue.message}`);
  }
  const raw = parsed.data;
  for (const uri of raw.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  // RFC 7591's default is client_secret_basic; a metadata document has no secret to share.
  const method = (raw.token_endpoint_auth_method ?? (source === 'registered' ? 'client_secret_basic' : 'none')) as TokenAuthMethod;
  if (!TOKEN_AUTH_METHODS.includes(method) || (source === 'metadata-document' && method !== 'none')) {
    throw new OAuthError('invalid_client_metadata', `token_endpoint_auth_method "${method}" is not supported; use ${source === 'registered' ? TOKEN_AUTH_METHODS.join(', ') : 'none'}.`);
  }
  const unsupportedGrant = raw.grant_types?.find((grant) => grant !== 'authorization_code' && grant !== 'refresh_token');
  if (unsupportedGrant) throw new OAuthError('invalid_client_metadata', `grant_types: "${unsupportedGrant}" is not supported (authorization_code and refresh_token are).`);
  if (raw.response_types?.some((type) => type !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types: only "code" is supported.');
  const fallbackName = source === 'metadata-document' ? new URL(clientId).host : 'an unnamed application';
  return {
    client: { clientId, clientName: raw.client_name || fallbackName, redirectUris: raw.redirect_uris, tokenEndpointAuthMethod: method, source, createdAt: now.toISOString() },
    raw,
  };
}

export class OAuthClients {
  constructor(
    private readonly store: Store,
    private readonly http: HttpClient,
    private readonly clock: () => Date,
  ) {}

  /** Dynamic client registration: stores the client and returns RFC 7591's response (with the secret, shown once). */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const clientId = `glc_${randomUUID().replace(/-/g, '')}`;
    const { client, raw } = clientFrom(body, clientId, 'registered', this.clock());
    const secret = client.tokenEndpointAuthMethod === 'none' ? undefined : `glcs_${randomBytes(24).toString('base64url')}`;
    if (secret) client.secretHash = hashApiKey(secret);
    await this.store.set(clientKey(clientId), client, UNUSED_REGISTRATION_MS);
    return {
      ...raw,
      client_id: clientId,
      client_id_issued_at: Math.floor(new Date(client.createdAt).getTime() / 1000),
      client_name: client.clientName,
      token_endpoint_auth_method: client.tokenEndpointAuthMethod,
      grant_types: raw.grant_types ?? ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    };
  }

  /** The client a client_id names, or invalid_client (unknown registration, unreachable or invalid document). */
  async find(clientId: string | undefined): Promise<OAuthClient> {
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is missing.');
    if (clientId.length > 2_000) throw new OAuthError('invalid_client', 'client_id is too long.');
    if (isMetadataDocumentId(clientId)) return this.fromDocument(clientId);
    const client = await this.store.get<OAuthClient>(clientKey(clientId));
    if (!client) throw new OAuthError('invalid_client', `Unknown client_id "${clientId}": register the client again (its registration may have expired).`);
    return client;
  }

  /** A client a person approved is kept (no expiry); for metadata documents there is nothing to keep. */
  async keep(client: OAuthClient): Promise<void> {
    if (client.source === 'registered') await this.store.set(clientKey(client.clientId), client);
  }

  /** Checks the client's authentication at the token and revocation endpoints. */
  authenticate(client: OAuthClient, presented: { secret?: string; method: TokenAuthMethod }): void {
    if (client.tokenEndpointAuthMethod === 'none') return;
    const secret = presented.secret;
    if (!secret || !client.secretHash) throw new OAuthError('invalid_client', 'This client must authenticate with its client_secret.');
    const given = Buffer.from(hashApiKey(secret), 'hex');
    if (!timingSafeEqual(given, Buffer.from(client.secretHash, 'hex'))) throw new OAuthError('invalid_client', 'The client_secret is wrong.');
  }

  private async fromDocument(url: string): Promise<OAuthClient> {
    const cached = await this.store.get<OAuthClient>(documentKey(url));
    if (cached) return cached;
    let body: unknown;
    try {
      const response = await this.http.fetch(url, { headers: { accept: 'application/json' }, maxBytes: METADATA_DOCUMENT_MAX_BYTES, timeoutMs: 10_000, maxRedirects: 0 });
      if (response.status !== 200) throw new OAuthError('invalid_client', `The client metadata document ${url} answered HTTP ${response.status}.`);
      body = response.json();
    } catch (error) {
      if (error instanceof OAuthError) throw error;
      // Said to a caller without a key: nothing of how names resolve here (the guard's and DNS's words stay inside).
      const reason = error instanceof GleanerError ? 'it could not be fetched, or its address is not allowed' : 'it is not JSON';
      throw new OAuthError('invalid_client', `The client metadata document ${url} could not be read: ${reason}.`);
    }
    const { client } = clientFrom(body, url, 'metadata-document', this.clock());
    if ((body as { client_id?: unknown }).client_id !== url) throw new OAuthError('invalid_client', `The client metadata document at ${url} names another client_id.`);
    await this.store.set(documentKey(url), client, METADATA_DOCUMENT_CACHE_MS);
    return client;
  }
}
