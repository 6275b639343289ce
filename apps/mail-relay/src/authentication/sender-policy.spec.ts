import { generateKeyPairSync } from 'node:crypto';
import { authenticate, type AuthenticationResult } from 'mailauth';
import { dkimSign } from 'mailauth/lib/dkim/sign';
import { senderVerdict } from './sender-policy';

// senderVerdict on mailauth's own results: each mail is authenticated by mailauth against a DNS of a few TXT records
// (below), so the verdict is tested on the shapes mailauth gives, not on copies of them.
const CLIENT = '198.51.100.7';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const DKIM_KEY = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;

type Answer = string[] | NodeJS.ErrnoException['code'];
const DNS: Record<string, Answer> = {
  'mail._domainkey.signed.test': [DKIM_KEY],
  'mail._domainkey.other.test': [DKIM_KEY],
  'shop.test': [`v=spf1 ip4:${CLIENT} -all`],
  'bounces.shop.test': [`v=spf1 ip4:${CLIENT} -all`],
  'mail._domainkey.bank.test': [DKIM_KEY],
  'bank.test': ['v=spf1 ip4:192.0.2.1 -all'],
  '_dmarc.bank.test': ['v=DMARC1; p=reject'],
  'flaky.test': 'ESERVFAIL',
  '_dmarc.slow.test': 'ETIMEOUT',
  'slow.test': [`v=spf1 ip4:${CLIENT} -all`],
  'mail._domainkey.flaky-key.test': 'ESERVFAIL',
  // A domain whose DMARC record asks for strict alignment: only its own exact domain vouches for it.
  '_dmarc.strict.test': ['v=DMARC1; p=reject; adkim=s; aspf=s'],
  'mail._domainkey.strict.test': [DKIM_KEY],
  'mail._domainkey.news.strict.test': [DKIM_KEY],
  'strict.test': [`v=spf1 ip4:${CLIENT} -all`],
  'bounces.strict.test': [`v=spf1 ip4:${CLIENT} -all`],
};

async function resolve(name: string, type: string): Promise<string[][]> {
  const answer = type === 'TXT' ? DNS[name.toLowerCase()] : undefined;
  if (Array.isArray(answer)) return answer.map((text) => [text]);
  throw Object.assign(new Error(`${type} ${name}: ${answer ?? 'ENOTFOUND'}`), { code: answer ?? 'ENOTFOUND' });
}

async function mail({ from, sender, signedBy }: { from: string; sender: string; signedBy?: string }): Promise<AuthenticationResult> {
  let message = `From: ${from}\r\nTo: tag-abcdefghjkmnpqrs@relay.example\r\nSubject: Keys\r\nMessage-ID: <1@x>\r\n\r\nI found your keys.\r\n`;
  if (signedBy) message = (await dkimSign(message, { signatureData: [{ signingDomain: signedBy, selector: 'mail', privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }) }] })).signatures + message;
  return authenticate(message, { ip: CLIENT, sender, mta: 'relay.example', resolver: resolve, disableArc: true, disableBimi: true });
}

describe('senderVerdict', () => {
  it('authenticates a From whose domain signed the mail (DKIM), though it has no SPF and no DMARC record', async () => {
    expect(senderVerdict(await mail({ from: 'Sam <sam@signed.test>', sender: 'sam@signed.test', signedBy: 'signed.test' }), 'sam@signed.test')).toBe('authenticated');
  });

  it('authenticates a From whose organizational domain let the client send for the envelope (SPF, relaxed alignment)', async () => {
    expect(senderVerdict(await mail({ from: 'sam@shop.test', sender: 'sam@shop.test' }), 'sam@shop.test')).toBe('authenticated');
    expect(senderVerdict(await mail({ from: 'sam@shop.test', sender: 'bounce-1@bounces.shop.test' }), 'sam@shop.test')).toBe('authenticated');
  });

  it('authenticates the envelope sender when the From header names no address (it is then the finder’s)', async () => {
    expect(senderVerdict(await mail({ from: 'Sam', sender: 'sam@shop.test' }), 'sam@shop.test')).toBe('authenticated');
    expect(senderVerdict(await mail({ from: 'Sam', sender: 'sam@bank.test' }), 'sam@bank.test')).toBe('forged');
  });

  it('refuses a From of a domain that neither signed nor sent it, whatever passed for another domain', async () => {
    // Another domain's valid signature, another domain's SPF pass: neither is the From domain's word.
    expect(senderVerdict(await mail({ from: 'ceo@bank.test', sender: 'ceo@bank.test', signedBy: 'other.test' }), 'ceo@bank.test')).toBe('forged');
    expect(senderVerdict(await mail({ from: 'ceo@bank.test', sender: 'sam@shop.test' }), 'ceo@bank.test')).toBe('forged');
    // A domain without any record.
    expect(senderVerdict(await mail({ from: 'sam@nothing.test', sender: 'sam@nothing.test' }), 'sam@nothing.test')).toBe('forged');
  });

  it('authenticates a domain that publishes DMARC (p=reject) when its own signature passed', async () => {
    expect(senderVerdict(await mail({ from: 'ceo@bank.test', sender: 'ceo@bank.test', signedBy: 'bank.test' }), 'ceo@bank.test')).toBe('authenticated');
  });

  it('holds a domain to the strict alignment its DMARC record asks for (adkim=s, aspf=s), not the relaxed one', async () => {
    // Its own signature, or SPF for its own domain: it vouched.
    expect(senderVerdict(await mail({ from: 'ceo@strict.test', sender: 'x@other.test', signedBy: 'strict.test' }), 'ceo@strict.test')).toBe('authenticated');
    expect(senderVerdict(await mail({ from: 'ceo@strict.test', sender: 'ceo@strict.test' }), 'ceo@strict.test')).toBe('authenticated');
    // A subdomain's signature, or SPF for a subdomain's envelope: relaxed alignment would take them, the record does not.
    expect(senderVerdict(await mail({ from: 'ceo@strict.test', sender: 'x@other.test', signedBy: 'news.strict.test' }), 'ceo@strict.test')).toBe('forged');
    expect(senderVerdict(await mail({ from: 'ceo@strict.test', sender: 'bounce@bounces.strict.test' }), 'ceo@strict.test')).toBe('forged');
  });

  it('refuses a From naming several addresses, or another address than the one taken as the finder’s', async () => {
    expect(senderVerdict(await mail({ from: 'sam@shop.test, ceo@bank.test', sender: 'sam@shop.test' }), 'sam@shop.test')).toBe('forged');
    expect(senderVerdict(await mail({ from: 'sam@shop.test', sender: 'sam@shop.test' }), 'ceo@shop.test')).toBe('forged');
  });

  it('answers unverifiable when a lookup for the From domain failed (SERVFAIL, timeout) and nothing passed', async () => {
    expect(senderVerdict(await mail({ from: 'sam@flaky.test', sender: 'sam@flaky.test' }), 'sam@flaky.test')).toBe('unverifiable');
    expect(senderVerdict(await mail({ from: 'sam@slow.test', sender: 'sam@slow.test' }), 'sam@slow.test')).toBe('unverifiable');
    expect(senderVerdict(await mail({ from: 'sam@flaky-key.test', sender: 'sam@flaky-key.test', signedBy: 'flaky-key.test' }), 'sam@flaky-key.test')).toBe('unverifiable');
  });

  it('does not wait on a failed lookup for another domain: a forgery stays refused', async () => {
    expect(senderVerdict(await mail({ from: 'ceo@bank.test', sender: 'x@flaky.test' }), 'ceo@bank.test')).toBe('forged');
  });
});
