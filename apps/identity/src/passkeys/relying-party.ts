import type { IdentityConfig } from '../config/identity.config';

export interface RelyingParty {
  /** PUBLIC_URL's host name: what the browser binds each passkey to. */
  id: string;
  /** PUBLIC_URL's origin: the only page a ceremony is accepted from. */
  origin: string;
  name: string;
}

/** The relying party of PUBLIC_URL (ports and paths are no part of a WebAuthn relying party id). */
export function relyingPartyOf(config: Pick<IdentityConfig, 'PUBLIC_URL'>): RelyingParty {
  const url = new URL(config.PUBLIC_URL);
  return { id: url.hostname, origin: url.origin, name: 'Homing' };
}

/** The WebAuthn user handle of a user: their id's 16 bytes (no e-mail address in the authenticator). */
export function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(userId.replace(/-/g, ''), 'hex'));
}
