export type AccountTokenPurpose = 'password_reset' | 'email_verification';

/** A one-time token just issued, with what its e-mail needs. */
export interface IssuedAccountToken {
  email: string;
  username: string;
  token: string;
  ttlSeconds: number;
}

/** What the mail module may ask of the auth module (bound to AccountTokensService in AuthModule). */
export abstract class AccountTokens {
  /**
   * A new token for the active account with this e-mail address, stored as its hash; the account's older tokens
   * of that purpose stop working. Null when there is no such account, or (email_verification) when its address
   * is verified already.
   */
  abstract issue(purpose: AccountTokenPurpose, email: string): Promise<IssuedAccountToken | null>;
}
