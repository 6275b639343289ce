import type { TFunction } from 'i18next';
import type { ValidationMap } from '@homing/contracts';

import type en from '../i18n/locales/en.json';
import { ApiError } from './api-transport';

// Product spec §8 in one place: which text a failed call shows.

export type ErrorKey = `errors.${keyof typeof en.errors}`;

/** Response codes whose text is the same on every screen. */
const textByCode: Record<string, ErrorKey> = {
  INVALID_CREDENTIALS: 'errors.invalidCredentials',
  LOGIN_CODE_EXPIRED: 'errors.loginCodeExpired',
  EXPIRED_PASSWORD_TOKEN: 'errors.passwordTokenExpired',
  INVALID_PASSWORD_TOKEN: 'errors.passwordTokenInvalid',
  EMAIL_ALREADY_REGISTERED: 'errors.emailAlreadyRegistered',
  CANNOT_FIND_YOUR_OWN_ITEM: 'errors.cannotFindOwnItem',
  ALREADY_CLAIMED: 'errors.alreadyClaimed',
  RATE_LIMITED: 'errors.tooManyRequests',
  FINDER_LEFT: 'errors.finderLeft',
  CONVERSATION_CLOSED: 'errors.conversationClosed',
  CONTACT_ALREADY_SHARED: 'errors.contactAlreadyShared',
  TOO_MANY_PEOPLE: 'errors.tooManyPeople',
  ALREADY_INVITED: 'errors.alreadyInvited',
  INVITATION_EXPIRED: 'errors.invitationExpired',
  RECENT_LOGIN_REQUIRED: 'errors.recentLoginRequired',
  TOO_MANY_PASSKEYS: 'errors.tooManyPasskeys',
};

/** When no response code has a text of its own. */
function fallbackByStatus(status: number): ErrorKey {
  if (status === 401 || status === 403) return 'errors.notAllowed';
  if (status === 404) return 'errors.notFound';
  if (status === 422) return 'errors.invalidInput';
  if (status === 429) return 'errors.tooManyRequests';
  if (status >= 500) return 'errors.serverTrouble';
  return 'errors.unexplained';
}

/** A screen's own texts, by response code or by HTTP status, ahead of the shared ones. */
export type ScreenErrors = Partial<Record<string | number, ErrorKey>>;

export function errorKey(error: unknown, screen: ScreenErrors = {}): ErrorKey {
  if (!(error instanceof ApiError)) return 'errors.unexplained';
  if (error.kind === 'rate-limited') return 'errors.clientRateLimit';
  if (error.kind !== 'http') return 'errors.unexplained';
  if (error.code && screen[error.code]) return screen[error.code] as ErrorKey;
  if (screen[error.status]) return screen[error.status] as ErrorKey;
  if (error.code && textByCode[error.code]) return textByCode[error.code];
  return fallbackByStatus(error.status);
}

export function errorText(t: TFunction, error: unknown, screen?: ScreenErrors): string {
  return t(errorKey(error, screen));
}

/** The message of one broken rule of the server's validation map (`required`, `min=N`, `max=N`, `email`, other). */
export function validationText(t: TFunction, rule: string): string {
  const [name, value] = rule.split('=');
  if (name === 'required') return t('validation.required');
  if (name === 'email') return t('validation.invalidEmailAddress');
  // A min or max without a number says nothing more than "invalid".
  const bound = value !== undefined && /^\d+$/.test(value) ? value : undefined;
  if (name === 'min' && bound) return t('validation.min', { min: bound });
  if (name === 'max' && bound) return t('validation.max', { max: bound });
  return t('validation.invalid');
}

/**
 * Splits a server validation map into messages for the form's own fields, and a line for each field the form does
 * not show (':fieldName is invalid.').
 */
export function validationErrors(
  t: TFunction,
  error: unknown,
  formFields: readonly string[],
): { fields: Record<string, string>; others: string[] } {
  const validation: ValidationMap = error instanceof ApiError && error.validation ? error.validation : {};
  const fields: Record<string, string> = {};
  const others: string[] = [];
  for (const [field, rule] of Object.entries(validation)) {
    if (formFields.includes(field)) fields[field] = validationText(t, rule);
    else others.push(t('validation.fieldInvalid', { fieldName: field }));
  }
  return { fields, others };
}
