import { z } from 'zod';

/** Languages a user can choose (ARCHITECTURE §5); Italian is listed in the interface but not selectable. */
export const USER_LANGUAGES = ['en', 'nl', 'es'] as const;
export type UserLanguage = (typeof USER_LANGUAGES)[number];
export const userLanguageSchema = z.enum(USER_LANGUAGES);

// Product spec §9: 8 to 128 characters, no composition rules.
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

/** An e-mail address as typed: trimmed, compared case-insensitively (stored lower-cased). */
export const emailSchema = z
  .string()
  .trim()
  .min(1)
  .max(254)
  .pipe(z.email())
  .transform((value) => value.toLowerCase());

export const passwordSchema = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH);

/** A login code as typed: 8 Crockford base32 characters, any case, spaces and dashes forgiven. */
export const loginCodeInputSchema = z.string().trim().min(1).max(32);

/** A password (reset or set) token from a link: 128 bits, base64url. */
export const passwordTokenInputSchema = z.string().trim().min(1).max(128);

/** The access token as a client holds it. */
export const accessTokenSchema = z.string().min(1).max(4096);

// HTTP bodies of the gateway (strict: unknown fields are refused).
export const loginBodySchema = z.strictObject({ email: emailSchema, password: z.string().min(1).max(PASSWORD_MAX_LENGTH) });
export const registerBodySchema = z.strictObject({ email: emailSchema, password: passwordSchema, inputName: z.string().max(100).optional() });
export const loginCodeBodySchema = z.strictObject({ code: loginCodeInputSchema });
export const emailBodySchema = z.strictObject({ email: emailSchema });
export const setPasswordBodySchema = z.strictObject({ token: passwordTokenInputSchema, password: passwordSchema });
export const updatePasswordBodySchema = z.strictObject({ password: passwordSchema });
export const languageBodySchema = z.strictObject({ language: userLanguageSchema });
/**
 * `DELETE /user`: the owner proves it is them once more, by their password or, for an owner without one, a login code
 * (`GET /magic-link`). Exactly one of the two.
 */
export const deleteAccountBodySchema = z
  .strictObject({ password: z.string().min(1).max(PASSWORD_MAX_LENGTH).optional(), code: loginCodeInputSchema.optional() })
  .superRefine((body, context) => {
    // Neither is a missing password (`required`); both is a body that cannot mean one thing (`invalid`).
    if (body.password === undefined && body.code === undefined) {
      context.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: ['password'], message: 'A password or a login code is required.' });
    } else if (body.password !== undefined && body.code !== undefined) {
      context.addIssue({ code: 'custom', path: ['code'], message: 'Send a password or a login code, not both.' });
    }
  });
export type LoginBody = z.infer<typeof loginBodySchema>;
export type RegisterBody = z.infer<typeof registerBodySchema>;
export type LoginCodeBody = z.infer<typeof loginCodeBodySchema>;
export type EmailBody = z.infer<typeof emailBodySchema>;
export type SetPasswordBody = z.infer<typeof setPasswordBodySchema>;
export type UpdatePasswordBody = z.infer<typeof updatePasswordBodySchema>;
export type LanguageBody = z.infer<typeof languageBodySchema>;
export type DeleteAccountBody = z.infer<typeof deleteAccountBodySchema>;

/** What every log-in answers. */
export const tokenResponseSchema = z.object({ token: z.string() });
export type TokenResponse = z.infer<typeof tokenResponseSchema>;

/** A user as they see themselves (`GET /user/me`), and as services look them up. */
export const userSchema = z.object({ id: z.uuid(), email: z.string(), language: userLanguageSchema });
export type User = z.infer<typeof userSchema>;

/** What the caller may see of other users (`GET /user/many`): themselves only, with their e-mail. */
export const visibleUserSchema = z.object({ id: z.uuid(), email: z.string().optional(), language: userLanguageSchema.optional() });

/**
 * Access token claims (ARCHITECTURE §6): signed ES256 by identity, verified by the gateway with the public key.
 * `sid` names the session (revocable), `jti` this token (rotation).
 */
export interface AccessTokenClaims {
  id: string;
  email: string;
  is_admin: boolean;
  sid: string;
  jti: string;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
}

export const ACCESS_TOKEN_ISSUER = 'homing-identity';
export const ACCESS_TOKEN_AUDIENCE = 'homing';
/** ARCHITECTURE §6: an access token lives 60 minutes. */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 60 * 60;

/**
 * Redis key marking a revoked session, read by the gateway on every authenticated request and written by identity
 * (logout, reuse of a rotated token, password change). Kept as long as an access token of the session can live.
 * WARNING: persisted in Redis; renaming it un-revokes sessions for up to an hour.
 */
export function revokedSessionKey(namespace: string, sessionId: string): string {
  return `${namespace ? `${namespace}:` : ''}homing:revoked-session:${sessionId}`;
}
