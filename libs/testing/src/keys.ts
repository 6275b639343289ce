import { generateKeyPairSync, randomBytes } from 'node:crypto';

interface TestKeys {
  JWT_PRIVATE_KEY: string;
  JWT_PUBLIC_KEY: string;
  VAPID_PUBLIC_KEY: string;
  VAPID_PRIVATE_KEY: string;
  VAPID_SUBJECT: string;
  LOGIN_CODE_KEY: string;
}

let keys: TestKeys | undefined;

/**
 * Keys for this test process, as every service a test starts gets them (as `npm start` gives them the development
 * keys): an ES256 pair as `JWT_PRIVATE_KEY` (identity signs) and `JWT_PUBLIC_KEY` (the gateway verifies), and a VAPID
 * pair (base64url, as web-push and browsers take them) that notifications signs pushes with, and the HMAC key identity
 * stores login codes under (`LOGIN_CODE_KEY`).
 */
export function testKeys(): TestKeys {
  if (!keys) {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const vapid = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });
    keys = {
      JWT_PRIVATE_KEY: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      JWT_PUBLIC_KEY: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      // The uncompressed point 0x04 || x || y, and the private scalar d.
      VAPID_PUBLIC_KEY: Buffer.concat([Buffer.from([4]), Buffer.from(vapid.x ?? '', 'base64url'), Buffer.from(vapid.y ?? '', 'base64url')]).toString('base64url'),
      VAPID_PRIVATE_KEY: vapid.d ?? '',
      VAPID_SUBJECT: 'mailto:tests@homing.test',
      LOGIN_CODE_KEY: randomBytes(32).toString('base64'),
    };
  }
  return keys;
}
