import { createPrivateKey, createPublicKey, randomBytes } from 'node:crypto';
import { z } from 'zod';
import { baseEnvSchema, ConfigError, databaseEnvSchema, envSchemas, loadConfig, redisEnvSchema, retentionEnvSchema } from '@homing/platform';

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
  .extend(retentionEnvSchema.shape)
  .extend({
    PORT: envSchemas.port.default(3001),
    /** Signs access tokens (ES256); the gateway verifies them with the matching public key. */
    JWT_PRIVATE_KEY: es256PrivateKeyPem.transform((pem) => pem.replace(/\\n/g, '\n')),
    /**
     * The gateways' JWT_PUBLIC_KEY, when given (deployments set it from the same secret): identity refuses to start
     * when it is not JWT_PRIVATE_KEY's public key, rather than sign tokens every gateway would refuse.
     */
    JWT_PUBLIC_KEY: z.string().refine((value) => value.includes('-----BEGIN PUBLIC KEY-----'), 'must be a PEM public key').optional(),
    /** While keys rotate: the public key tokens were signed with before, so their sessions can still refresh. */
    JWT_PREVIOUS_PUBLIC_KEY: z.string().refine((value) => value.includes('-----BEGIN PUBLIC KEY-----'), 'must be a PEM public key').optional(),
    /**
     * The HMAC-SHA-256 key login codes are stored under (32+ bytes), so a copy of the table cannot be searched for
     * the 2^40 codes. Required in production; `npm start` and the test stacks provide one like the JWT keys.
     * Changing it invalidates the codes in flight (they last 10 minutes): users ask for a new one.
     */
    LOGIN_CODE_KEY: z
      .string()
      .refine((key) => Buffer.byteLength(key, 'utf8') >= 32, 'must be at least 32 bytes (e.g. `openssl rand -base64 48`)')
      .optional(),
    /**
     * Where owners use the product: passkeys are bound to its host (the relying party id) and accepted only from its
     * origin. Changing the host makes every passkey unusable (owners log in otherwise and add new ones).
     */
    PUBLIC_URL: envSchemas.urlWithProtocol(['http:', 'https:']).default('http://localhost:8080'),
    /** Self-registration (`POST /user`); off by default: accounts are created when a tag is activated. */
    REGISTRATION_ENABLED: envSchemas.booleanFlag.default(false),
    /** argon2id hashes computed at once (about one per core: each takes 15–20 ms of CPU). */
    PASSWORD_HASH_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(2),
    /** Hashes waiting for a slot; beyond it, logins are refused with 429 at once instead of waiting without bound. */
    PASSWORD_HASH_QUEUE: z.coerce.number().int().min(0).max(10_000).default(32),
  });

export type IdentityConfig = Omit<z.infer<typeof identityEnvSchema>, 'LOGIN_CODE_KEY'> & { LOGIN_CODE_KEY: string };

/** Whether a PEM public key is the one of the private key (both as SPKI DER). */
function isPublicKeyOf(publicPem: string, privatePem: string): boolean {
  try {
    const spki = (key: ReturnType<typeof createPublicKey>) => key.export({ type: 'spki', format: 'der' });
    return spki(createPublicKey(publicPem.replace(/\\n/g, '\n'))).equals(spki(createPublicKey(createPrivateKey(privatePem))));
  } catch {
    return false;
  }
}

export function loadIdentityConfig(env: NodeJS.ProcessEnv = process.env): IdentityConfig {
  const config = loadConfig(identityEnvSchema, env);
  if (config.JWT_PUBLIC_KEY && !isPublicKeyOf(config.JWT_PUBLIC_KEY, config.JWT_PRIVATE_KEY)) {
    throw new ConfigError(["JWT_PUBLIC_KEY: not JWT_PRIVATE_KEY's public key (the gateways would refuse every token identity signs)"]);
  }
  if (config.LOGIN_CODE_KEY) return config as IdentityConfig;
  if (config.NODE_ENV === 'production') throw new ConfigError(['LOGIN_CODE_KEY: required in production (32+ bytes)']);
  // Outside production a key of this process only: codes it hashed stop working when it restarts, which a
  // developer can live with (`npm start` and the test stacks set a stable one anyway).
  return Object.freeze({ ...config, LOGIN_CODE_KEY: randomBytes(32).toString('base64') });
}
