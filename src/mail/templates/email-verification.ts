import { html, lifetime, type MailContent, page } from './template.js';

/** The values of a message that carries a one-time token. */
export interface TokenMailValues {
  username: string;
  token: string;
  /** The page of the storefront that takes the token. */
  link: string;
  ttlSeconds: number;
}

export function emailVerification(values: TokenMailValues): MailContent {
  const subject = 'Confirm your e-mail address';
  const valid = lifetime(values.ttlSeconds);
  const text = [
    `Hello ${values.username},`,
    '',
    'please confirm that this is your e-mail address by opening:',
    '',
    values.link,
    '',
    `or send this token to POST /auth/verify-email: ${values.token}`,
    '',
    `The link works once, for ${valid}. If you did not create an account, ignore this message.`,
  ].join('\n');
  const body = html`<p>Hello ${values.username},</p>
    <p>please confirm that this is your e-mail address:</p>
    <p><a href="${values.link}">Confirm my e-mail address</a></p>
    <p>Token: <code>${values.token}</code></p>
    <p>The link works once, for ${valid}. If you did not create an account, ignore this message.</p>`;
  return { subject, text, html: page(subject, body) };
}
