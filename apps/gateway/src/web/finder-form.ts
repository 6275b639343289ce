import type { IncomingHttpHeaders } from 'node:http';
import { createMessageBodySchema, finderTokenSchema, setFinderBodySchema, toValidationMap, USER_LANGUAGES, type UserLanguage, type ValidationMap } from '@homing/contracts';

// The finder page's form as a browser without script posts it (application/x-www-form-urlencoded), its origin check
// and the finder's cookie. Pure functions: the routes are in finder-page.http-controller.ts.

/** The fields of the finder page's form (apps/web MessageForm with its hidden language field). */
export interface FinderForm {
  content: string;
  email: string;
  language: UserLanguage | undefined;
}

const FORM_FIELDS = new Set(['content', 'email', 'language']);

/**
 * Enough for the longest message the contract takes (2,000 characters, up to 12 bytes each once percent-encoded)
 * with an e-mail address and the language; a larger body is refused before it is read.
 */
export const FINDER_FORM_BODY_LIMIT_BYTES = 32 * 1024;

/**
 * The posted form, or null when it is not the page's form: a field the page does not have, or one twice. Missing
 * fields are empty (the validation then says which is required).
 */
export function parseFinderForm(body: string): FinderForm | null {
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(body)) {
    if (!FORM_FIELDS.has(name) || fields.has(name)) return null;
    fields.set(name, value);
  }
  const language = USER_LANGUAGES.find((offered) => offered === fields.get('language'));
  return { content: fields.get('content') ?? '', email: (fields.get('email') ?? '').trim(), language };
}

export type ValidatedFinderForm = { valid: true; content: string; email: string | undefined } | { valid: false; validation: ValidationMap };

/**
 * The same rules as the JSON routes: the message body's schema (`POST /items/{code}/messages`) and, when the finder
 * left one, the address's (`set-finder`).
 */
export function validateFinderForm(form: FinderForm, { inConversation = false }: { inConversation?: boolean } = {}): ValidatedFinderForm {
  // A finder in their conversation may send their address alone (the page asks for it again when saving it failed
  // after their message went in): no message then.
  if (inConversation && form.email && !form.content.trim()) {
    const email = setFinderBodySchema.safeParse({ email: form.email });
    return email.success ? { valid: true, content: '', email: email.data.email } : { valid: false, validation: toValidationMap(email.error, { email: form.email }) };
  }
  const message = createMessageBodySchema.safeParse({ content: form.content });
  const email = form.email ? setFinderBodySchema.safeParse({ email: form.email }) : undefined;
  const validation: ValidationMap = {
    ...(message.success ? {} : toValidationMap(message.error, { content: form.content })),
    ...(email && !email.success ? toValidationMap(email.error, { email: form.email }) : {}),
  };
  if (!message.success || (email && !email.success)) return { valid: false, validation };
  return { valid: true, content: message.data.content, email: email?.success ? email.data.email : undefined };
}

/**
 * Whether a form post comes from a page of this site: its Origin (every current browser sends one with a POST), or
 * without one its Referer, must be PUBLIC_URL's origin. A post with neither is refused: a form on another site must
 * not write in a finder's name with their cookie (SameSite=Strict is the second lock, not the only one).
 */
export function isSameOrigin(headers: Pick<IncomingHttpHeaders, 'origin' | 'referer'>, publicOrigin: string): boolean {
  const { origin, referer } = headers;
  if (typeof origin === 'string') return origin === publicOrigin;
  if (typeof referer !== 'string') return false;
  try {
    return new URL(referer).origin === publicOrigin;
  } catch {
    return false;
  }
}

// WARNING: persisted in finders' browsers; renaming it loses every finder's way back to their conversation.
export const FINDER_COOKIE = 'homing_finder';

/**
 * How long a finder's browser keeps their finder token: 30 days from their last message (it is set again with each),
 * the resume link's lifetime, rather than the conversation's full retention (365 days without a message). A finder
 * who comes back later asks for a resume link, as in a browser that never wrote (docs/privacy.md).
 */
export const FINDER_COOKIE_MAX_AGE_SECONDS = 30 * 24 * 60 * 60;

/** The finder token in a request's cookies, if it has one of the right shape (a malformed one is no token). */
export function finderTokenFromCookies(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const pair of cookieHeader.split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0 || pair.slice(0, separator).trim() !== FINDER_COOKIE) continue;
    const parsed = finderTokenSchema.safeParse(pair.slice(separator + 1).trim());
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/**
 * The Set-Cookie value that keeps a finder token for one finder page only (`Path=/found/{code}`): never sent with
 * other pages or the API, never readable by script, never sent from another site, only over https when the site is.
 */
export function finderCookie(token: string, pagePath: string, secure: boolean): string {
  return [`${FINDER_COOKIE}=${token}`, `Path=${pagePath}`, `Max-Age=${FINDER_COOKIE_MAX_AGE_SECONDS}`, 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

/** The Set-Cookie value that forgets the finder cookie of a page (its token is no longer taken). */
export function clearedFinderCookie(pagePath: string, secure: boolean): string {
  return [`${FINDER_COOKIE}=`, `Path=${pagePath}`, 'Max-Age=0', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])].join('; ');
}

/** The finder page's path for a code as its route received it (decoded): the form's action, the cookie's path. */
export function finderPagePath(code: string): string {
  return `/found/${encodeURIComponent(code)}`;
}
