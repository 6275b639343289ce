import { createHash, generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';

/** The options a server gave for a ceremony, as far as an authenticator reads them. */
interface CeremonyOptions {
  challenge: string;
  rp?: { id?: string };
  rpId?: string;
  user?: { id: string };
}

/** What the authenticator signs besides the server's challenge: the page's origin and, for a test, its flaws. */
export interface CeremonyContext {
  origin: string;
  /** The relying party id the authenticator hashes into its data (the origin's host unless given). */
  rpId?: string;
  /** `webauthn.create` / `webauthn.get` unless a test forges another type. */
  type?: string;
  /** Sign with this counter instead of the next one. */
  counter?: number;
  /** User verified (UV); true unless given. */
  userVerified?: boolean;
  /** A user handle other than the credential's own. */
  userHandle?: string;
  /** Report backup flags other than the credential's (BE may never change for a credential). */
  synced?: boolean;
}

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

/**
 * A WebAuthn authenticator in software, for tests of a relying party without a browser: it makes one ES256
 * credential and answers registration and log-in ceremonies as a browser would serialise them (the JSON of
 * @simplewebauthn/browser), with attestation `none`. Its counter goes up by one per assertion unless told otherwise.
 */
export class SoftAuthenticator {
  readonly credentialId = randomBytes(32).toString('base64url');
  private readonly keys: { privateKey: KeyObject; publicKey: KeyObject };
  private userHandle: string | undefined;
  counter = 0;

  /** `synced`: a passkey manager's credential (backup eligible and backed up); `aaguid`: the model it reports. */
  constructor(private readonly options: { synced?: boolean; aaguid?: string } = {}) {
    this.keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  }

  /** The answer to `navigator.credentials.create(options)` on `context.origin`. */
  register(options: CeremonyOptions, context: CeremonyContext): Record<string, unknown> {
    this.userHandle = options.user?.id;
    const rpId = context.rpId ?? options.rp?.id ?? new URL(context.origin).hostname;
    const jwk = this.keys.publicKey.export({ format: 'jwk' });
    const coseKey = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x as string, 'base64url')],
      [-3, Buffer.from(jwk.y as string, 'base64url')],
    ]);
    const credentialId = Buffer.from(this.credentialId, 'base64url');
    const attested = Buffer.concat([
      Buffer.from((this.options.aaguid ?? '00000000-0000-0000-0000-000000000000').replace(/-/g, ''), 'hex'),
      Buffer.from([credentialId.length >> 8, credentialId.length & 0xff]),
      credentialId,
      Buffer.from(isoCBOR.encode(coseKey)),
    ]);
    const authData = Buffer.concat([this.authenticatorData(rpId, this.counter, context, FLAG_AT), attested]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', new Uint8Array(authData)]]) as never);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      response: {
        clientDataJSON: clientData(context.type ?? 'webauthn.create', options.challenge, context.origin),
        attestationObject: Buffer.from(attestationObject).toString('base64url'),
        transports: ['internal'],
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      type: 'public-key',
    };
  }

  /** The answer to `navigator.credentials.get(options)` on `context.origin`, signed with the next counter. */
  authenticate(options: CeremonyOptions, context: CeremonyContext): Record<string, unknown> {
    const rpId = context.rpId ?? options.rpId ?? new URL(context.origin).hostname;
    const counter = context.counter ?? ++this.counter;
    const authData = this.authenticatorData(rpId, counter, context, 0);
    const clientDataJSON = clientData(context.type ?? 'webauthn.get', options.challenge, context.origin);
    const signature = sign('sha256', Buffer.concat([authData, createHash('sha256').update(Buffer.from(clientDataJSON, 'base64url')).digest()]), this.keys.privateKey);
    return {
      id: this.credentialId,
      rawId: this.credentialId,
      response: {
        clientDataJSON,
        authenticatorData: authData.toString('base64url'),
        signature: signature.toString('base64url'),
        ...((context.userHandle ?? this.userHandle) ? { userHandle: context.userHandle ?? this.userHandle } : {}),
      },
      authenticatorAttachment: 'platform',
      clientExtensionResults: {},
      type: 'public-key',
    };
  }

  private authenticatorData(rpId: string, counter: number, context: CeremonyContext, extraFlags: number): Buffer {
    const backup = (context.synced ?? this.options.synced) ? FLAG_BE | FLAG_BS : 0;
    const flags = FLAG_UP | ((context.userVerified ?? true) ? FLAG_UV : 0) | backup | extraFlags;
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    return Buffer.concat([createHash('sha256').update(rpId).digest(), Buffer.from([flags]), count]);
  }
}

function clientData(type: string, challenge: string, origin: string): string {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false })).toString('base64url');
}

/** A user handle (base64url) of no user: 16 random bytes, as a server's would be. */
export function strangerUserHandle(): string {
  return Buffer.from(randomUUID().replace(/-/g, ''), 'hex').toString('base64url');
}
