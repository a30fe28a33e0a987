import type { IncomingMessage } from 'node:http';

/** Deepest nesting of arrays and objects accepted in a JSON body. */
export const MAX_JSON_DEPTH = 32;

/** A refused body: body-parser passes it on with this status, and the exception filter reports `rule`. */
export class BodyRefusedError extends Error {
  readonly status = 400;
  readonly expose = true;
  readonly type = 'entity.verify.failed';

  constructor(
    readonly rule: string,
    message: string,
  ) {
    super(message);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
const LETTER_U = 0x75;

const isHighSurrogate = (unit: number) => unit >= 0xd800 && unit <= 0xdbff;
const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

/**
 * Checks a JSON body before it is parsed, in one pass over its text: valid UTF-8 (never silently replaced
 * by U+FFFD), no `\uD800`-style escape of half a surrogate pair (the databases cannot store one), and at most
 * MAX_JSON_DEPTH levels of nesting (so no deeply nested input reaches JSON.parse, class-transformer or the
 * validator). Malformed JSON is left to the parser, which reports it.
 */
export function checkJsonBody(_request: IncomingMessage, _response: unknown, body: Buffer): void {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new BodyRefusedError('utf8', 'Request body is not valid UTF-8');
  }
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === QUOTE) inString = false;
      else if (c === BACKSLASH) {
        if (text.charCodeAt(i + 1) !== LETTER_U) {
          i++;
          continue;
        }
        const unit = parseInt(text.slice(i + 2, i + 6), 16);
        if (isHighSurrogate(unit)) {
          const paired =
            text.charCodeAt(i + 6) === BACKSLASH &&
            text.charCodeAt(i + 7) === LETTER_U &&
            isLowSurrogate(parseInt(text.slice(i + 8, i + 12), 16));
          if (!paired) throw loneSurrogate();
          i += 11;
        } else if (isLowSurrogate(unit)) {
          throw loneSurrogate();
        } else {
          i += 5;
        }
      }
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_JSON_DEPTH) {
        throw new BodyRefusedError('maxDepth', `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
      }
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
}

function loneSurrogate(): BodyRefusedError {
  return new BodyRefusedError('unicode', 'Request body has a \\u escape of an unpaired surrogate');
}
