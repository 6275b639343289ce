import type { ContactKind } from '@homing/contracts';
// ibantools declares its CommonJS build with the typings of its ES module build ("type": "module"), so node16
// resolution refuses a require that works at runtime. Remove once the package ships .d.cts typings.
// @ts-expect-error TS1479
import { electronicFormatIBAN, getCountrySpecifications, isValidIBAN } from 'ibantools';
// The 'max' metadata: with the default ('min') validity is a length check only, and any nine digits pass as Spanish.
import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';

export interface MaskedText {
  text: string;
  /** What was masked: each kind once, in the order phone, iban, email, link; [] when the text came back as written. */
  kinds: ContactKind[];
}

interface Span {
  start: number;
  end: number;
  /** null: a span that is left as written but searched no further (an IBAN whose checksum fails). */
  kind: ContactKind | null;
  replacement: string;
}

const KIND_ORDER: readonly ContactKind[] = ['phone', 'iban', 'email', 'link'];
const BULLET = '•';
// Language-neutral on purpose: the reader's client names the kind, in the reader's language, from `kinds`.
const MASKED_EMAIL = `${BULLET.repeat(3)}@${BULLET.repeat(3)}`;
const MASKED_LINK = `http${BULLET.repeat(3)}`;

// A link starts at http(s):// or www. that does not continue a word or an e-mail address, and runs to the next space.
// Character classes only, no nested quantifiers: linear whatever the input.
const LINK = /(?<![\p{L}\p{N}@._%+-])(?:https?:\/\/|www\.)[^\s<>"]+/giu;
// Punctuation that ends a sentence rather than a link ("see www.example.nl.").
const LINK_TRAILING = /[.,;:!?'…]/u;
const CLOSING_BRACKETS: Record<string, string> = { '(': ')', '[': ']', '{': '}' };

// The lookbehind starts a local part only at the beginning of its run, so 'aaaa…' is not retried from every position;
// each domain label ends at its dot, so the labels cannot be split two ways.
const EMAIL = /(?<![\p{L}\p{N}._%+-])[\p{L}\p{N}._%+-]+@(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}(?![\p{L}\p{N}-])/gu;

// Two country letters and two check digits, not in the middle of a word; the rest is read by `ibanAt`.
const IBAN_START = /(?<![\p{L}\p{N}])[A-Za-z]{2}\d{2}/gu;
const IBAN_LENGTHS = new Map(
  Object.entries(getCountrySpecifications()).flatMap(([country, spec]) => (spec.chars ? [[country, spec.chars] as const] : [])),
);

// National formats are read as Dutch first, then as Spanish: the two countries the service runs in.
const NATIONAL_COUNTRIES: readonly CountryCode[] = ['NL', 'ES'];
// How a number written without a country code looks in each country (all its digits): a Dutch one is a trunk 0 and
// nine digits; a Spanish one is nine digits starting with 6, 7 (mobile), 8 or 9 (fixed).
const NATIONAL_WRITTEN: Partial<Record<CountryCode, RegExp>> = { NL: /^0\d{9}$/, ES: /^[6-9]\d{8}$/ };
const MIN_PHONE_DIGITS = 9;
// E.164 allows 15 digits; "00" instead of "+" and a "(0)" after the country code add two each.
const MAX_PHONE_DIGITS = 19;
// Digits joined by single separators, brackets and a leading "+": how phone numbers are written ("+31 (0)6 12345678",
// "(020) 123 4567", "612-34-56-78", "06 - 12345678"). libphonenumber is given only these runs, one at a time: a long
// message costs a few short searches, and the library, which reads across commas, cannot join two numbers of a list
// into one. Each repetition starts with a separator, so a run is read only one way.
const DIGIT_RUN = /\(?\+?\(?\d[\d()]*(?:(?: ?[-–] ?|[ ./])\(?\d[\d()]*)*/gu;
const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const DIGIT = /\d/;
const DIGIT_SEPARATOR = /[ .\-/]/;

/**
 * The text as the other side of a conversation sees it before both sides agreed to share contact details: phone
 * numbers, IBANs, e-mail addresses and links masked, everything else as written.
 */
export function maskContactDetails(text: string): MaskedText {
  const spans: Span[] = [];
  // Links and e-mail addresses first: the digits of "https://example.nl/0612345678" or "jan0612345678@example.nl" are
  // part of the link or address, not a phone number. Then IBANs, whose digits hold phone-like runs too.
  addFree(spans, findLinks(text));
  addFree(spans, findEmails(text));
  addFree(spans, findIbans(text));
  addFree(spans, findPhones(blankOut(text, spans)));

  if (!spans.some((span) => span.kind !== null)) return { text, kinds: [] };
  spans.sort((a, b) => a.start - b.start);
  let masked = '';
  let cursor = 0;
  for (const span of spans) {
    if (span.kind === null) continue;
    masked += text.slice(cursor, span.start) + span.replacement;
    cursor = span.end;
  }
  masked += text.slice(cursor);
  const found = new Set(spans.map((span) => span.kind));
  return { text: masked, kinds: KIND_ORDER.filter((kind) => found.has(kind)) };
}

/** Adds the candidates that do not overlap a span already taken: nothing is masked inside a masked span. */
function addFree(spans: Span[], candidates: Span[]): void {
  for (const candidate of candidates) {
    if (!spans.some((span) => candidate.start < span.end && span.start < candidate.end)) spans.push(candidate);
  }
}

function findLinks(text: string): Span[] {
  const links: Span[] = [];
  for (const match of text.matchAll(LINK)) {
    const end = match.index + linkLength(match[0]);
    // "www." or "http://" alone, or followed only by punctuation, is a word, not a link.
    if (!/^(?:https?:\/\/|www\.)[\p{L}\p{N}]/iu.test(text.slice(match.index, end))) continue;
    links.push({ start: match.index, end, kind: 'link', replacement: MASKED_LINK });
  }
  return links;
}

/** The link without the ".", "!" and the like that end the sentence, nor the brackets it did not open ("(see www.x.nl)"). */
function linkLength(candidate: string): number {
  // Per closing bracket: how many more closed than opened, counted once, so trimming stays linear.
  const unopened: Record<string, number> = { ')': 0, ']': 0, '}': 0 };
  for (const character of candidate) {
    if (character in unopened) unopened[character]++;
    else if (character in CLOSING_BRACKETS) unopened[CLOSING_BRACKETS[character]]--;
  }
  let length = candidate.length;
  while (length > 0) {
    const last = candidate[length - 1];
    if (LINK_TRAILING.test(last)) {
      length--;
    } else if (unopened[last] > 0) {
      unopened[last]--;
      length--;
    } else {
      break;
    }
  }
  return length;
}

function findEmails(text: string): Span[] {
  return [...text.matchAll(EMAIL)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
    kind: 'email' as const,
    replacement: MASKED_EMAIL,
  }));
}

function findIbans(text: string): Span[] {
  const ibans: Span[] = [];
  for (const match of text.matchAll(IBAN_START)) {
    const iban = ibanAt(text, match.index);
    if (iban) ibans.push(iban);
  }
  return ibans;
}

/**
 * Reads an IBAN from `start`, in print format ("NL91 ABNA 0417 1643 00") or electronic format, any case: the length of
 * its country's IBANs in letters and digits, single spaces allowed between them, not running on into a longer word.
 * One that fails its checksum is left as written but kept from the phone search, whose digits it would otherwise offer.
 */
function ibanAt(text: string, start: number): Span | null {
  const length = IBAN_LENGTHS.get(text.slice(start, start + 2).toUpperCase());
  if (length === undefined) return null;
  let characters = 0;
  let end = start;
  while (characters < length && end < text.length) {
    if (LETTER_OR_DIGIT.test(text[end])) {
      characters++;
      end++;
    } else if (text[end] === ' ' && end + 1 < text.length && LETTER_OR_DIGIT.test(text[end + 1])) {
      end++;
    } else {
      break;
    }
  }
  const written = text.slice(start, end);
  if (characters === length && !LETTER_OR_DIGIT.test(text[end] ?? '')) {
    const electronic = electronicFormatIBAN(written);
    if (electronic && isValidIBAN(electronic)) return { start, end, kind: 'iban', replacement: maskIban(electronic) };
  }
  return { start, end, kind: null, replacement: written };
}

/** "NL91ABNA0417164300" → "NL•• •••• •••• ••43 00": the country and the last four characters, in groups of four. */
function maskIban(electronic: string): string {
  const hidden = electronic.length - 2 - 4;
  const masked = electronic.slice(0, 2) + BULLET.repeat(hidden) + electronic.slice(-4);
  return masked.match(/.{1,4}/gu)?.join(' ') ?? masked;
}

/** The text with every span taken replaced by as many letters, so its digits are not read as, or into, a phone number. */
function blankOut(text: string, spans: Span[]): string {
  let blanked = text;
  for (const span of spans) blanked = blanked.slice(0, span.start) + 'x'.repeat(span.end - span.start) + blanked.slice(span.end);
  return blanked;
}

function findPhones(text: string): Span[] {
  const phones: Span[] = [];
  for (const run of text.matchAll(DIGIT_RUN)) {
    const runStart = run.index;
    const digits = run[0].replace(/\D/gu, '').length;
    // A longer run is a card number or a column of figures: any phone number in it would not stand alone.
    if (digits < MIN_PHONE_DIGITS || digits > MAX_PHONE_DIGITS) continue;
    for (const country of NATIONAL_COUNTRIES) {
      for (const found of findPhoneNumbersInText(run[0], { defaultCountry: country })) {
        const start = runStart + found.startsAt;
        const end = runStart + found.endsAt;
        // findPhoneNumbersInText keeps only numbers valid by the metadata; the guard keeps only those written as one.
        if (!writtenAsPhoneNumber(text, start, end, country)) continue;
        const { countryCallingCode, nationalNumber } = found.number;
        addFree(phones, [{ start, end, kind: 'phone', replacement: maskPhone(countryCallingCode, nationalNumber) }]);
      }
    }
  }
  return phones;
}

/**
 * libphonenumber finds valid numbers in anything with enough digits: an order number, a bank account, nine digits
 * that happen to fit a Spanish mobile. A chat about a lost item is full of those, so a candidate counts only when
 * written like a phone number: at least nine digits, and either international (a leading "+" or "00") or national
 * as the country being tried writes it (NL: "0" and nine digits; ES: nine digits starting with 6-9). It must stand on
 * its own: no letter or digit touching it, and no digit beyond a single separator (" ", ".", "-", "/"), which would
 * make it a piece of a longer run such as "1234 5678 9012 3456".
 */
function writtenAsPhoneNumber(text: string, start: number, end: number, country: CountryCode): boolean {
  const written = text.slice(start, end).replace(/^\(/u, '');
  const digits = written.replace(/\D/gu, '');
  if (digits.length < MIN_PHONE_DIGITS) return false;
  const international = written.startsWith('+') || written.startsWith('00');
  if (!international && !NATIONAL_WRITTEN[country]?.test(digits)) return false;
  return standsAlone(text[start - 1], text[start - 2]) && standsAlone(text[end], text[end + 1]);
}

/** Whether the characters next to a number (`near`, and `beyond` it) leave it a number of its own. */
function standsAlone(near: string | undefined, beyond: string | undefined): boolean {
  if (near === undefined) return true;
  if (LETTER_OR_DIGIT.test(near)) return false;
  return !(DIGIT_SEPARATOR.test(near) && beyond !== undefined && DIGIT.test(beyond));
}

/**
 * The masked number: "+", the country calling code, the first digit of the national number, then the rest of it with
 * all but its last two digits as "•", grouped in fours counted from the end. "06-12345678" (national 612345678) →
 * "+31 6 •••• ••78"; "+44 7911 123456" (national 7911123456) → "+44 7 • •••• ••56". The first digit says mobile or
 * fixed line, the last two let the owner recognise a number they already know; neither lets a stranger call.
 */
function maskPhone(countryCallingCode: string, nationalNumber: string): string {
  const rest = nationalNumber.slice(1);
  const shown = rest.slice(-2);
  const masked = BULLET.repeat(rest.length - shown.length) + shown;
  const groups: string[] = [];
  for (let end = masked.length; end > 0; end -= 4) groups.unshift(masked.slice(Math.max(0, end - 4), end));
  return `+${countryCallingCode} ${nationalNumber[0]} ${groups.join(' ')}`;
}
