// Development keys for `npm start`, generated once into .data/ (git-ignored) and reused after, so that sessions
// (signed with the JWT key) and browser push subscriptions (bound to the VAPID key) survive a restart.
// Production never uses these: there the keys are required configuration (ARCHITECTURE §10).
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DEFAULT_VAPID_SUBJECT = 'mailto:dev@homing.localhost';

export const KEY_FILES = {
  jwtPrivate: 'jwt-private.pem',
  jwtPublic: 'jwt-public.pem',
  vapid: 'vapid.json',
  loginCode: 'login-code.key',
};

/** Writes through a temporary file and a rename, so an interrupted run never leaves half a key behind. */
function writeFileAtomic(path, content, mode) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content, { mode });
  renameSync(temporary, path);
}

/** An ES256 (ECDSA P-256) key pair for signing and checking access tokens, as PEM (PKCS#8 / SPKI). */
export function generateJwtKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }),
  };
}

/**
 * A VAPID key pair (RFC 8292) in the form web-push and the browser's PushManager take: the public key as the
 * uncompressed P-256 point (0x04 || x || y, 65 bytes), the private key as the 32-byte scalar d, both base64url.
 */
export function generateVapidKeys() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  // JWK coordinates are always full length (RFC 7518 §6.2.1), unlike ECDH.getPrivateKey(), which may drop a leading zero.
  const { x, y, d } = privateKey.export({ format: 'jwk' });
  const point = Buffer.concat([Buffer.from([0x04]), Buffer.from(x, 'base64url'), Buffer.from(y, 'base64url')]);
  return { publicKey: point.toString('base64url'), privateKey: d };
}

/** Reads the JWT pair from the directory, or null if either file is missing; throws if they are unusable. */
function readJwtKeyPair(dataDir) {
  const privatePath = join(dataDir, KEY_FILES.jwtPrivate);
  const publicPath = join(dataDir, KEY_FILES.jwtPublic);
  if (!existsSync(privatePath) || !existsSync(publicPath)) return null;
  const privateKey = readFileSync(privatePath, 'utf8');
  const publicKey = readFileSync(publicPath, 'utf8');
  try {
    // A public key that does not belong to the private key would make every token fail to verify, far from here.
    const derived = createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'pem' });
    if (derived !== createPublicKey(publicKey).export({ type: 'spki', format: 'pem' })) throw new Error('the public key does not match the private key');
  } catch (error) {
    throw new Error(`${privatePath} / ${publicPath} are unusable (${error.message}); delete both to generate new ones`);
  }
  return { privateKey, publicKey };
}

function readVapidKeys(dataDir) {
  const path = join(dataDir, KEY_FILES.vapid);
  if (!existsSync(path)) return null;
  try {
    const { publicKey, privateKey } = JSON.parse(readFileSync(path, 'utf8'));
    if (Buffer.from(publicKey, 'base64url').length !== 65 || Buffer.from(privateKey, 'base64url').length !== 32) {
      throw new Error('expected a 65-byte public key and a 32-byte private key');
    }
    return { publicKey, privateKey };
  } catch (error) {
    throw new Error(`${path} is unusable (${error.message}); delete it to generate new keys`);
  }
}

/**
 * The JWT and VAPID keys and the login-code key in .data/, generated on first use and read back after.
 * @returns {{ jwt: {privateKey: string, publicKey: string}, vapid: {publicKey: string, privateKey: string}, loginCodeKey: string, generated: string[] }}
 */
export function ensureDevKeys(dataDir) {
  mkdirSync(dataDir, { recursive: true });
  const generated = [];

  let jwt = readJwtKeyPair(dataDir);
  if (!jwt) {
    jwt = generateJwtKeyPair();
    writeFileAtomic(join(dataDir, KEY_FILES.jwtPrivate), jwt.privateKey, 0o600);
    writeFileAtomic(join(dataDir, KEY_FILES.jwtPublic), jwt.publicKey, 0o644);
    generated.push(KEY_FILES.jwtPrivate, KEY_FILES.jwtPublic);
  }

  let vapid = readVapidKeys(dataDir);
  if (!vapid) {
    vapid = generateVapidKeys();
    writeFileAtomic(join(dataDir, KEY_FILES.vapid), `${JSON.stringify(vapid, null, 2)}\n`, 0o600);
    generated.push(KEY_FILES.vapid);
  }

  // Login codes are stored under this HMAC key: kept, so a code mailed just before a restart still works.
  const loginCodePath = join(dataDir, KEY_FILES.loginCode);
  let loginCodeKey = existsSync(loginCodePath) ? readFileSync(loginCodePath, 'utf8').trim() : '';
  if (Buffer.byteLength(loginCodeKey) < 32) {
    loginCodeKey = randomBytes(32).toString('base64');
    writeFileAtomic(loginCodePath, `${loginCodeKey}\n`, 0o600);
    generated.push(KEY_FILES.loginCode);
  }

  return { jwt, vapid, loginCodeKey, generated };
}

/**
 * The key variables for the services: whatever the environment already sets wins, the rest comes from .data/.
 * Keys come in pairs, so half a pair in the environment is refused rather than completed with a stranger's half.
 * @returns {{ env: Record<string, string>, generated: string[] }}
 */
export function devKeyEnv(dataDir, env = process.env) {
  for (const [a, b] of [
    ['JWT_PRIVATE_KEY', 'JWT_PUBLIC_KEY'],
    ['VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY'],
  ]) {
    if (Boolean(env[a]) !== Boolean(env[b])) throw new Error(`${env[a] ? a : b} is set but ${env[a] ? b : a} is not: set both, or neither to use the development keys in .data/`);
  }
  const needsFiles = !env.JWT_PRIVATE_KEY || !env.VAPID_PUBLIC_KEY || !env.LOGIN_CODE_KEY;
  const keys = needsFiles ? ensureDevKeys(dataDir) : null;
  return {
    env: {
      JWT_PRIVATE_KEY: env.JWT_PRIVATE_KEY || keys.jwt.privateKey,
      JWT_PUBLIC_KEY: env.JWT_PUBLIC_KEY || keys.jwt.publicKey,
      VAPID_PUBLIC_KEY: env.VAPID_PUBLIC_KEY || keys.vapid.publicKey,
      VAPID_PRIVATE_KEY: env.VAPID_PRIVATE_KEY || keys.vapid.privateKey,
      VAPID_SUBJECT: env.VAPID_SUBJECT || DEFAULT_VAPID_SUBJECT,
      LOGIN_CODE_KEY: env.LOGIN_CODE_KEY || keys.loginCodeKey,
    },
    generated: keys?.generated ?? [],
  };
}
