import { html, lifetime, type MailContent, page } from './template.js';
import type { TokenMailValues } from './email-verification.js';

export function passwordReset(values: TokenMailValues): MailContent {
  const subject = 'Reset your password';
  const valid = lifetime(values.ttlSeconds);
  const text = [
    `Hello ${values.username},`,
    '',
    'someone (we hope you) asked to reset the password of your account. To choose a new one, open:',
    '',
    values.link,
    '',
    `or send this token with your new password to POST /auth/password-reset/confirm: ${values.token}`,
    '',
    `The link works once, for ${valid}. Resetting the password signs you out everywhere.`,
    'If you did not ask for it, ignore this message: your password stays as it is.',
  ].join('\n');
  const body = html`<p>Hello ${values.username},</p>
    <p>someone (we hope you) asked to reset the password of your account.</p>
    <p><a href="${values.link}">Choose a new password</a></p>
    <p>Token: <code>${values.token}</code></p>
    <p>The link works once, for ${valid}. Resetting the password signs you out everywhere.</p>
    <p>If you did not ask for it, ignore this message: your password stays as it is.</p>`;
  return { subject, text, html: page(subject, body) };
}
