// What every service started by a benchmark needs besides its own settings: an ES256 key pair as `npm start`
// generates one (identity signs, the gateway verifies), and a VAPID pair (notifications), made fresh for the run.
import { generateKeyPairSync } from 'node:crypto';

export function benchKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const vapid = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
  return {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    // The uncompressed point 0x04 || x || y, and the private scalar d (base64url, as web-push takes them).
    VAPID_PUBLIC_KEY: Buffer.concat([Buffer.from([4]), Buffer.from(vapid.x, 'base64url'), Buffer.from(vapid.y, 'base64url')]).toString('base64url'),
    VAPID_PRIVATE_KEY: vapid.d,
    VAPID_SUBJECT: 'mailto:bench@homing.test',
  };
}
