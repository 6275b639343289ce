import type { AuthenticationResult } from 'mailauth';
import { getAlignment } from 'mailauth/lib/tools';

/**
 * What the relay makes of a mail's sender authentication:
 * - `authenticated`: the domain of the finder's address passed DMARC, or, when it publishes no DMARC record, SPF or
 *   a DKIM signature passed for the same organizational domain (relaxed alignment, as DMARC would have it);
 * - `unverifiable`: it did not pass, and a DNS lookup failed on the way (timeout, SERVFAIL): the sender retries;
 * - `forged`: it did not pass, for good (no SPF or key of that domain, a signature of another, several From).
 */
export type SenderVerdict = 'authenticated' | 'unverifiable' | 'forged';

/**
 * The verdict on `finderAddress` (the address the relay takes as the finder's: the From header's, else the envelope
 * sender's) from mailauth's result. A From header naming another address than that one, or several, is forged: the
 * relay must vouch for exactly the address the owner's replies will go to.
 */
export function senderVerdict(result: AuthenticationResult, finderAddress: string): SenderVerdict {
  const domain = domainOf(finderAddress);
  const fromHeader = result.dkim.headerFrom;
  if (!domain || fromHeader.length > 1) return 'forged';
  if (fromHeader.length === 1 && fromHeader[0].toLowerCase() !== finderAddress.toLowerCase()) return 'forged';

  // Without a From address DMARC has nothing to check (mailauth gives false): the envelope sender is the address.
  const dmarc = result.dmarc ? result.dmarc.status.result : 'none';
  if (dmarc === 'pass') return 'authenticated';
  const aligned = (other: string | undefined) => !!other && getAlignment(domain, [other]) !== false;
  const spf = result.spf && aligned(result.spf.domain) ? result.spf.status.result : 'none';
  const dkim = result.dkim.results.filter((signature) => aligned(signature.signingDomain)).map((signature) => signature.status.result);
  // A record that fails is the domain's own word; without a record, relaxed alignment decides as DMARC would.
  if (dmarc === 'none' && (spf === 'pass' || dkim.includes('pass'))) return 'authenticated';
  // A lookup that failed could have been the pass: of the DMARC record, or of SPF or a key for this domain.
  return dmarc === 'temperror' || spf === 'temperror' || dkim.includes('temperror') ? 'unverifiable' : 'forged';
}

/** The domain of an address, lower-cased, or '' when it has none. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at > 0 ? address.slice(at + 1).trim().toLowerCase() : '';
}
