import type { UserLanguage } from '@homing/contracts';

/**
 * What the relay reads of a received mail, as pure functions: whether a machine sent it, which language it is in,
 * and the new text of a reply without the quoted mail below it or the signature.
 */

/** The headers the relay looks at, lower-cased names, as mailparser gives them. */
export interface MailHeaders {
  get(name: string): unknown;
  has(name: string): boolean;
}

const AUTOMATED_PRECEDENCE = new Set(['bulk', 'junk', 'list', 'auto_reply', 'auto-reply']);

/**
 * Why a mail must not become a message, if a machine sent it: a bounce (null sender `MAIL FROM:<>`, or a delivery
 * report), an auto-reply (`Auto-Submitted` other than `no`, RFC 3834), or bulk mail (`Precedence`). Answering these
 * would only start a loop between two robots.
 */
export function automatedReason(headers: MailHeaders, envelopeSender: string | null): string | null {
  if (!envelopeSender) return 'bounce';
  const contentType = headerText(headers.get('content-type')).toLowerCase();
  if (contentType.startsWith('multipart/report')) return 'bounce';
  const autoSubmitted = headerText(headers.get('auto-submitted')).trim().toLowerCase();
  if (autoSubmitted && autoSubmitted !== 'no') return 'auto-reply';
  if (AUTOMATED_PRECEDENCE.has(headerText(headers.get('precedence')).trim().toLowerCase())) return 'auto-reply';
  // Microsoft's and other vacation responders that do not say Auto-Submitted.
  if (headers.has('x-autoreply') || headers.has('x-autorespond') || headerText(headers.get('x-auto-response-suppress')).toLowerCase().includes('all')) return 'auto-reply';
  return null;
}

function headerText(value: unknown): string {
  if (typeof value === 'string') return value;
  // mailparser gives structured headers (content-type) as { value, params }.
  if (value && typeof value === 'object' && 'value' in value && typeof value.value === 'string') return value.value;
  return '';
}

// Words frequent in each language and rare in the others: enough to tell a short note's language.
const LANGUAGE_WORDS: Record<UserLanguage, Set<string>> = {
  en: new Set(['the', 'and', 'i', 'you', 'your', 'found', 'is', 'it', 'to', 'of', 'my', 'have', 'this', 'with', 'please', 'hello', 'hi', 'thanks']),
  nl: new Set(['het', 'een', 'ik', 'je', 'jouw', 'van', 'en', 'niet', 'heb', 'gevonden', 'bij', 'met', 'dit', 'is', 'op', 'hallo', 'groeten', 'bedankt', 'sleutels', 'mijn']),
  es: new Set(['el', 'la', 'los', 'las', 'que', 'y', 'un', 'una', 'he', 'encontrado', 'tu', 'tus', 'es', 'con', 'por', 'hola', 'gracias', 'llaves', 'mi', 'saludos']),
};

/**
 * The language to answer a mail in: its `Content-Language` when it names one we speak, else the language most of
 * its words belong to, else English.
 */
export function mailLanguage(contentLanguage: unknown, text: string): UserLanguage {
  const declared = headerText(contentLanguage).split(',')[0]?.trim().slice(0, 2).toLowerCase();
  if (declared === 'en' || declared === 'nl' || declared === 'es') return declared;
  const words = text.toLowerCase().match(/\p{L}+/gu)?.slice(0, 300) ?? [];
  const scores = (Object.keys(LANGUAGE_WORDS) as UserLanguage[]).map((language) => ({
    language,
    score: words.filter((word) => LANGUAGE_WORDS[language].has(word)).length,
  }));
  const [best, second] = scores.sort((a, b) => b.score - a.score);
  return best.score >= 2 && best.score > second.score ? best.language : 'en';
}

// The line that introduces the quoted mail, in the mail programs' words (en, nl, es), possibly wrapped over two lines.
const QUOTE_HEADERS = [
  /^\s*On\b.{0,300}\bwrote:\s*$/is,
  /^\s*Op\b.{0,300}\b(schreef|geschreven)\b.{0,300}:\s*$/is,
  /^\s*El\b.{0,300}\bescribi[óo]:\s*$/is,
  /^\s*-{2,}\s*(Original Message|Oorspronkelijk bericht|Origineel bericht|Mensaje original|Forwarded message|Doorgestuurd bericht|Mensaje reenviado)\s*-*\s*$/i,
  /^\s*_{10,}\s*$/,
];
// Outlook's header block: "From: …" with "Sent:"/"Date:" (or their translations) within the next lines.
const OUTLOOK_FROM = /^\s*\*?(From|Van|De):\*?\s/i;
const OUTLOOK_DATE = /^\s*\*?(Sent|Date|Verzonden|Datum|Enviado|Fecha):\*?\s/i;
// The signature delimiter ("-- "), and the lines phones and apps add.
const SIGNATURE = [/^--\s?$/, /^\s*(Sent from my|Sent from Outlook|Get Outlook for|Verzonden vanaf mijn|Verstuurd vanaf mijn|Verzonden met|Enviado desde mi|Enviado con|Obtener Outlook para)\b/i];

/**
 * The new text of a mail: everything above the quoted mail it answers (the "On …, … wrote:" line and what follows, in
 * English, Dutch and Spanish, or Outlook's header block) and above the signature, without `>` lines in between.
 */
export function replyText(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  let end = lines.length;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    const withNext = `${line} ${lines[index + 1] ?? ''}`;
    const quoteHeader = QUOTE_HEADERS.some((pattern) => pattern.test(line) || (line.trim() !== '' && pattern.test(withNext) && !/:\s*$/.test(line) && /:\s*$/.test(withNext)));
    const outlookBlock = OUTLOOK_FROM.test(line) && lines.slice(index + 1, index + 5).some((next) => OUTLOOK_DATE.test(next));
    const signature = SIGNATURE.some((pattern) => pattern.test(line));
    if (quoteHeader || outlookBlock || signature) {
      end = index;
      break;
    }
  }
  return lines
    .slice(0, end)
    .filter((line) => !/^\s*>/.test(line))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * A message's text from the mail: its new text, or the subject when the body says nothing, plus a note of the
 * attachments that were dropped; cut to the message limit and stripped of control characters the thread refuses.
 */
export function messageOf(mail: { text: string; subject: string; attachmentNames: string[] }, maxLength: number): string {
  let body = plainText(replyText(mail.text));
  if (!body) body = plainText(mail.subject.replace(/^\s*((re|aw|antw|fw|fwd|rv)\s*:\s*)+/i, '')).trim();
  const names = mail.attachmentNames.map((name) => plainText(name).slice(0, 100));
  const note = names.length > 0 ? plainText(`\n\n[${names.length === 1 ? 'Attachment' : 'Attachments'} not passed on: ${names.join(', ')}]`.slice(0, Math.floor(maxLength / 4))) : '';
  if (!body && !note) return '';
  const room = maxLength - note.length;
  const text = body.length > room ? `${plainText(body.slice(0, Math.max(0, room - 1))).trimEnd()}…` : body;
  return `${text}${note}`.trim();
}

// Control characters but the newline, and halves of characters (UTF-16 surrogates without their pair), which a
// message may not hold; a tab becomes a space.
// eslint-disable-next-line no-control-regex
const NOT_PLAIN_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function plainText(value: string): string {
  return value.replace(/\t/g, ' ').replace(NOT_PLAIN_TEXT, '');
}
