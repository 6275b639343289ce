import { domainToASCII } from 'node:url';
import type { AuthenticationResult } from 'mailauth';
import { getAlignment } from 'mailauth/lib/tools';

/**
 * What the relay makes of a mail's sender authentication:
 * - `authenticated`: the domain of the finder's address passed DMARC, with the alignment its record asks for (strict:
 *   the exact domain), or, when it publishes no DMARC record, SPF or a DKIM signature passed for the same
 *   organizational domain (relaxed alignment, as DMARC would have it);
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
  const dmarc = result.dmarc ? dmarcResult(result, result.dmarc, domain) : 'none';
  if (dmarc === 'pass') return 'authenticated';
  const spf = result.spf && relaxedAligned(domain, result.spf.domain) ? result.spf.status.result : 'none';
  const dkim = result.dkim.results.filter((signature) => relaxedAligned(domain, signature.signingDomain)).map((signature) => signature.status.result);
  // A record that fails is the domain's own word; without a record, relaxed alignment decides as DMARC would.
  if (dmarc === 'none' && (spf === 'pass' || dkim.includes('pass'))) return 'authenticated';
  // A lookup that failed could have been the pass: of the DMARC record, or of SPF or a key for this domain.
  return dmarc === 'temperror' || spf === 'temperror' || dkim.includes('temperror') ? 'unverifiable' : 'forged';
}

/**
 * mailauth's DMARC result, but a pass only relaxed alignment gave where the record asks for strict (`aspf=s`,
 * `adkim=s`: the exact domain) is the record's fail. mailauth 4.9.5 reports a pass on relaxed alignment whatever the
 * record says (its `getAlignment` is handed `{ strict }` where it reads a boolean, and falls back to the
 * organizational domain), so a subdomain's signature would pass for a domain that forbids it.
 */
function dmarcResult(result: AuthenticationResult, dmarc: Exclude<AuthenticationResult['dmarc'], false>, domain: string): string {
  const strict = dmarc.alignment ?? { spf: { strict: false }, dkim: { strict: false } };
  if (dmarc.status.result !== 'pass' || (!strict.spf.strict && !strict.dkim.strict)) return dmarc.status.result;
  const exact = domainToASCII(domain);
  const matches = (other: string | undefined, strictly: boolean) =>
    strictly ? !!other && exact !== '' && domainToASCII(other.toLowerCase()) === exact : relaxedAligned(domain, other);
  const spf = !!result.spf && result.spf.status.result === 'pass' && matches(result.spf.domain, strict.spf.strict);
  const dkim = result.dkim.results.some((signature) => signature.status.result === 'pass' && matches(signature.signingDomain, strict.dkim.strict));
  return spf || dkim ? 'pass' : 'fail';
}

/** Whether `other` is in the same organizational domain as `domain` (DMARC's relaxed alignment). */
function relaxedAligned(domain: string, other: string | undefined): boolean {
  return !!other && getAlignment(domain, [other]) !== false;
}

/** The domain of an address, lower-cased, or '' when it has none. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at > 0 ? address.slice(at + 1).trim().toLowerCase() : '';
}
