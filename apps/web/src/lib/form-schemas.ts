import type { TFunction } from 'i18next';
import { z } from 'zod';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '@homing/contracts';

// Product spec §5, as zod schemas whose messages are already in the reader's language.

export function requiredText(t: TFunction) {
  return z.string().trim().min(1, t('validation.required'));
}

/**
 * A password the user already has (login, proof before deleting the account): required, but sent exactly as typed,
 * since spaces at its ends are part of it (new passwords keep them too).
 */
export function currentPasswordField(t: TFunction) {
  return z.string().min(1, t('validation.required'));
}

export function emailField(t: TFunction) {
  return requiredText(t).pipe(z.email(t('validation.emailInvalid')));
}

export function passwordField(t: TFunction) {
  return z
    .string()
    .min(1, t('validation.required'))
    .min(PASSWORD_MIN_LENGTH, t('validation.passwordTooShort', { minLength: PASSWORD_MIN_LENGTH }))
    .max(PASSWORD_MAX_LENGTH, t('validation.passwordTooLong', { maxLength: PASSWORD_MAX_LENGTH }));
}

/** New password and its repetition (account, set and reset password). */
export function newPasswordSchema(t: TFunction) {
  return z
    .object({ password: passwordField(t), repeat: z.string() })
    .refine((values) => values.password === values.repeat, { message: t('validation.passwordsMismatch'), path: ['repeat'] });
}
export type NewPasswordValues = { password: string; repeat: string };
