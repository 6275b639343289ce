import { generateKeyPairSync } from 'node:crypto';

let keys: { JWT_PRIVATE_KEY: string; JWT_PUBLIC_KEY: string } | undefined;

/**
 * An ES256 key pair for this test process, as `JWT_PRIVATE_KEY` (identity signs) and `JWT_PUBLIC_KEY` (the gateway
 * verifies). Every service a test starts gets it, as `npm start` gives them the development pair.
 */
export function testKeys(): { JWT_PRIVATE_KEY: string; JWT_PUBLIC_KEY: string } {
  if (!keys) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    keys = {
      JWT_PRIVATE_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      JWT_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
  }
  return keys;
}
