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
  // A pass that only relaxed alignment gave, where the record asks for strict, is the record's fail.
  const dmarc = result.dmarc ? (result.dmarc.status.result === 'pass' && !alignedAsRecordAsks(result, domain) ? 'fail' : result.dmarc.status.result) : 'none';
  if (dmarc === 'pass') return 'authenticated';
  const aligned = (other: string | undefined) => !!other && getAlignment(domain, [other]) !== false;
  const spf = result.spf && aligned(result.spf.domain) ? result.spf.status.result : 'none';
  const dkim = result.dkim.results.filter((signature) => aligned(signature.signingDomain)).map((signature) => signature.status.result);
  // A record that fails is the domain's own word; without a record, relaxed alignment decides as DMARC would.
  if (dmarc === 'none' && (spf === 'pass' || dkim.includes('pass'))) return 'authenticated';
  // A lookup that failed could have been the pass: of the DMARC record, or of SPF or a key for this domain.
  return dmarc === 'temperror' || spf === 'temperror' || dkim.includes('temperror') ? 'unverifiable' : 'forged';
}

/**
 * Whether a passing SPF result or DKIM signature aligns with `domain` as its DMARC record asks: strict (`aspf=s`,
 * `adkim=s`) is the exact domain, relaxed the same organizational domain. mailauth 4.9.5 reports a DMARC pass on
 * relaxed alignment whatever the record says (its `getAlignment` is handed `{ strict }` where it reads a boolean, and
 * falls back to the organizational domain), so a subdomain's signature would pass for a domain that forbids it.
 */
function alignedAsRecordAsks(result: AuthenticationResult, domain: string): boolean {
  const alignment = result.dmarc ? result.dmarc.alignment : undefined;
  const exact = domainToASCII(domain);
  const matches = (other: string | undefined, strict: boolean) =>
    !!other && (strict ? exact !== '' && domainToASCII(other.toLowerCase()) === exact : getAlignment(domain, [other]) !== false);
  const spf = !!result.spf && result.spf.status.result === 'pass' && matches(result.spf.domain, alignment?.spf.strict ?? false);
  return spf || result.dkim.results.some((signature) => signature.status.result === 'pass' && matches(signature.signingDomain, alignment?.dkim.strict ?? false));
}

/** The domain of an address, lower-cased, or '' when it has none. */
export function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at > 0 ? address.slice(at + 1).trim().toLowerCase() : '';
}
