import { z } from 'zod';

// C0 control characters and DEL are never part of what a person types into a one-line field: NUL cannot be stored in
// PostgreSQL text, and CR/LF would let a name break out of an e-mail header or a log line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
// Half of a UTF-16 surrogate pair cannot be encoded as UTF-8; databases and mail would mangle it.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A one-line text a person types (a name): trimmed, `min`..`max` characters, no control characters. */
export function singleLineText(max: number, min = 1) {
  return z
    .string()
    .trim()
    .min(min)
    .max(max)
    .refine((value) => !CONTROL_CHARACTER.test(value) && !LONE_SURROGATE.test(value), 'must be plain text on one line');
}

// Everything singleLineText refuses except the newline: a message may span lines.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_CHARACTER_BUT_NEWLINE = /[\u0000-\u0009\u000b-\u001f\u007f]/;

/**
 * A text a person types over several lines (a message): Windows line ends become `\n`, trimmed, `min`..`max`
 * characters, no control characters but the newline.
 */
export function multiLineText(max: number, min = 1) {
  return z
    .string()
    .transform((value) => value.replace(/\r\n?/g, '\n'))
    .pipe(z.string().trim().min(min).max(max))
    .refine((value) => !CONTROL_CHARACTER_BUT_NEWLINE.test(value) && !LONE_SURROGATE.test(value), 'must be plain text');
}
