/**
 * The slot for "OAuth clients approved for this key": the console shows the section (and its route,
 * /console/oauth-clients) only when the server is given a source of that data, which is the OAuth
 * authorization server's own record of approvals (built beside the console, wired in http-server.ts).
 * Without one the section is absent: nothing is shown that nothing records.
 */
export interface ApprovedClient {
  /** The approval (one sign-in of the client for this key): what Revoke withdraws. */
  grantId: string;
  clientId: string;
  /** The name the client registered with, as the person saw it when approving. */
  name: string;
  approvedAt: string;
  lastUsedAt?: string;
}

export interface OAuthClientsSource {
  /** The clients approved for this key (its account id), and only those. */
  list(accountId: string): Promise<ApprovedClient[]>;
  /** Withdraws the approval and every token of the client for this key; NOT_FOUND for a client not approved by it. */
  revoke(accountId: string, grantId: string): Promise<void>;
}
