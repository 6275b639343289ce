// What every service started by a benchmark needs besides its own settings: an ES256 key pair as `npm start`
// generates one (identity signs, the gateway verifies), made fresh for the run.
import { generateKeyPairSync } from 'node:crypto';

export function benchKeys() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    JWT_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    JWT_PUBLIC_KEY: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}
