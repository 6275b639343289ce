import { generateKeyPairSync } from 'node:crypto';
import { ConfigError } from '@homing/platform';
import { loadIdentityConfig } from './identity.config';

const pair = () => generateKeyPairSync('ec', { namedCurve: 'prime256v1', publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });

describe('identity’s configuration', () => {
  const signing = pair();
  const env = { DATABASE_URL: 'postgres://localhost/homing', JWT_PRIVATE_KEY: signing.privateKey };

  it('takes the gateways’ public key when it is the signing key’s, as deployments give it (one line, \\n escaped too)', () => {
    expect(loadIdentityConfig({ ...env, JWT_PUBLIC_KEY: signing.publicKey }).JWT_PUBLIC_KEY).toBe(signing.publicKey);
    expect(() => loadIdentityConfig({ ...env, JWT_PUBLIC_KEY: signing.publicKey.replace(/\n/g, '\\n') })).not.toThrow();
    expect(() => loadIdentityConfig(env)).not.toThrow();
  });

  it('refuses to start with a public key of another pair: the gateways would refuse every token it signs', () => {
    expect(() => loadIdentityConfig({ ...env, JWT_PUBLIC_KEY: pair().publicKey })).toThrow(ConfigError);
    expect(() => loadIdentityConfig({ ...env, JWT_PUBLIC_KEY: pair().publicKey })).toThrow(/JWT_PUBLIC_KEY: not JWT_PRIVATE_KEY's public key/);
  });
});
