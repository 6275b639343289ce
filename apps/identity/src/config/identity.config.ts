import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { baseEnvSchema, databaseEnvSchema, envSchemas, loadConfig, redisEnvSchema } from '@homing/platform';

// An EC P-256 private key in PEM: what ES256 signs with. Checked at start-up so a bad key fails loudly there.
const es256PrivateKeyPem = z.string().refine((pem) => {
  try {
    const key = createPrivateKey(pem.replace(/\\n/g, '\n'));
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}, 'must be an EC P-256 private key in PEM (ES256)');

const identityEnvSchema = baseEnvSchema
  .extend(databaseEnvSchema.shape)
  .extend(redisEnvSchema.shape)
  .extend({
    PORT: envSchemas.port.default(3001),
    /** Signs access tokens (ES256); the gateway verifies them with the matching public key. */
    JWT_PRIVATE_KEY: es256PrivateKeyPem.transform((pem) => pem.replace(/\\n/g, '\n')),
    /** While keys rotate: the public key tokens were signed with before, so their sessions can still refresh. */
    JWT_PREVIOUS_PUBLIC_KEY: z.string().refine((value) => value.includes('-----BEGIN PUBLIC KEY-----'), 'must be a PEM public key').optional(),
    /** Self-registration (`POST /user`); off by default: accounts are created when a tag is activated. */
    REGISTRATION_ENABLED: envSchemas.booleanFlag.default(false),
    /** argon2id hashes computed at once (about one per core: each takes 15–20 ms of CPU). */
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /** Hashes waiting for a slot; beyond it, logins are refused with 429 at once instead of waiting without bound. */
    PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  });

export type IdentityConfig = z.infer<typeof identityEnvSchema>;

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env): IdentityConfig {
  return loadConfig(identityEnvSchema, env);
}

export const IDENTITY_CONFIG = Symbol('IDENTITY_CONFIG');
