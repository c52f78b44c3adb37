/** Gleaner's own OAuth authorization server, below the surfaces: clients, grants and tokens over the one store. */
import type { Store } from '../store/store.js';
import type { HttpClient } from '../net/http.js';
import type { Accounts } from './accounts.js';
import type { Clock } from './clock.js';
import { OAuthClients } from './oauth-clients.js';
import { OAuthTokens, type TokenSettings } from './oauth-tokens.js';
import { OAuthGrants } from './oauth-grants.js';
import { ExternalIssuer, type ExternalIssuerSettings } from './external-issuer.js';
import { AddressThrottle } from './address-throttle.js';

export interface OAuth {
  clients: OAuthClients;
  tokens: OAuthTokens;
  /** The console's view: approved clients of an account, and revoking one. */
  grants: OAuthGrants;
  /** The operator's identity provider (GLEANER_OAUTH_ISSUER), when one replaces Gleaner's sign-in. */
  external?: ExternalIssuer;
  /** Per-address bounds on what callers without a key do (registrations, sign-in pages, wrong keys; the console's too). */
  throttle: AddressThrottle;
}

export function createOAuth(options: { store: Store; accounts: Accounts; http: HttpClient; clock: Clock; settings: TokenSettings; external?: ExternalIssuerSettings }): OAuth {
  const tokens = new OAuthTokens(options.store, options.accounts, options.clock, options.settings);
  return {
    clients: new OAuthClients(options.store, options.http, options.clock),
    throttle: new AddressThrottle(options.store, options.clock),
    tokens,
    grants: new OAuthGrants(tokens),
    external: options.external ? new ExternalIssuer(options.external, options.http, options.accounts, options.clock) : undefined,
  };
}
