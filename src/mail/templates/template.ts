/** HTML whose special characters are already escaped: interpolated into `html` as it is. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** The parts of a message a template renders. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ENTITIES[char]);
}

/**
 * Tagged template for HTML: every interpolated value is escaped (quotes too, so values are safe in attributes),
 * except SafeHtml (another `html` fragment); arrays are joined.
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  const piece = (value: unknown): string =>
    value instanceof SafeHtml
      ? value.value
      : Array.isArray(value)
        ? value.map(piece).join('')
        : escapeHtml(String(value));
  return new SafeHtml(strings.reduce((out, text, i) => out + piece(values[i - 1]) + text));
}

/** The HTML document around a message's body. */
export function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${title}</title>
      </head>
      <body style="font-family: sans-serif; line-height: 1.5; color: #222">
        ${body}
      </body>
    </html> `.value;
}

const formats = new Map<string, Intl.NumberFormat>();

/** An amount as the API shows it (major units), with its currency: 19.99 eur → "€19.99", 1999 jpy → "¥1,999". */
export function money(amount: number, currency: string): string {
  let format = formats.get(currency);
  if (format === undefined) {
    format = new Intl.NumberFormat('en', { style: 'currency', currency });
    formats.set(currency, format);
  }
  return format.format(amount);
}

/** A duration in whole minutes or hours, for "the link is valid for …". */
export function lifetime(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? '1 hour' : `${seconds / 3600} hours`;
  const minutes = Math.max(1, Math.round(seconds / 60));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}
