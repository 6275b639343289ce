import { z } from 'zod';
import { singleLineText } from './text';

/** How long a registration or log-in ceremony may take: its challenge is refused after this (kept server-side). */
export const PASSKEY_CHALLENGE_TTL_SECONDS = 5 * 60;
/** A passkey can be added only this soon after the session's log-in (by password, code or passkey). */
export const PASSKEY_RECENT_LOGIN_MINUTES = 10;
/** Passkeys one account may hold. */
export const PASSKEYS_PER_USER_MAX = 20;
export const PASSKEY_NAME_MAX_LENGTH = 64;

// WebAuthn's JSON encodes binary as base64url; bounded so a body cannot ask the verifier to decode megabytes.
const base64url = (max: number) => z.string().max(max).regex(/^[A-Za-z0-9_-]*$/, 'must be base64url');

/**
 * What `navigator.credentials.create()` answers, as @simplewebauthn/browser's `startRegistration` serialises it.
 * Loose inside: browsers add fields as WebAuthn grows; the verifier reads only what it knows.
 */
export const passkeyRegistrationResponseSchema = z.object({
  id: base64url(1366).min(1),
  rawId: base64url(1366).min(1),
  response: z.object({
    clientDataJSON: base64url(8192).min(1),
    attestationObject: base64url(65_536).min(1),
    authenticatorData: base64url(65_536).optional(),
    transports: z.array(z.string().max(32)).max(16).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(8192).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  type: z.literal('public-key'),
});
export type PasskeyRegistrationResponse = z.infer<typeof passkeyRegistrationResponseSchema>;

/** What `navigator.credentials.get()` answers, as `startAuthentication` serialises it. */
export const passkeyAuthenticationResponseSchema = z.object({
  id: base64url(1366).min(1),
  rawId: base64url(1366).min(1),
  response: z.object({
    clientDataJSON: base64url(8192).min(1),
    authenticatorData: base64url(65_536).min(1),
    signature: base64url(8192).min(1),
    userHandle: base64url(1024).optional(),
  }),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  type: z.literal('public-key'),
});
export type PasskeyAuthenticationResponse = z.infer<typeof passkeyAuthenticationResponseSchema>;

// HTTP bodies (strict outside: unknown fields are refused).
export const passkeyRegistrationBodySchema = z.strictObject({ response: passkeyRegistrationResponseSchema });
export const passkeyLoginBodySchema = z.strictObject({ response: passkeyAuthenticationResponseSchema });
export const passkeyRenameBodySchema = z.strictObject({ name: singleLineText(PASSKEY_NAME_MAX_LENGTH) });
export type PasskeyRegistrationBody = z.infer<typeof passkeyRegistrationBodySchema>;
export type PasskeyLoginBody = z.infer<typeof passkeyLoginBodySchema>;
export type PasskeyRenameBody = z.infer<typeof passkeyRenameBodySchema>;

/**
 * The options a browser's ceremony takes (`PublicKeyCredentialCreationOptionsJSON` or `…RequestOptionsJSON`), passed
 * as @simplewebauthn/server made them; the client hands them to `startRegistration` / `startAuthentication` unread.
 */
export const passkeyCreationOptionsSchema = z.looseObject({
  challenge: z.string(),
  rp: z.looseObject({ id: z.string().optional(), name: z.string() }),
  user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.looseObject({ alg: z.number(), type: z.string() })),
});
export const passkeyRequestOptionsSchema = z.looseObject({ challenge: z.string(), rpId: z.string().optional() });
export type PasskeyCreationOptions = z.infer<typeof passkeyCreationOptionsSchema>;
export type PasskeyRequestOptions = z.infer<typeof passkeyRequestOptionsSchema>;

/**
 * A passkey as its owner sees it on Account. `name` is the owner's, else the provider's (from the authenticator's
 * AAGUID), else null: the client words a default. `synced`: the credential is backed up (a passkey manager's copy).
 */
export const passkeySchema = z.object({
  id: z.uuid(),
  name: z.string().nullable(),
  provider: z.string().nullable(),
  synced: z.boolean(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type Passkey = z.infer<typeof passkeySchema>;
export const passkeyListSchema = z.object({ passkeys: z.array(passkeySchema) });
export type PasskeyList = z.infer<typeof passkeyListSchema>;
