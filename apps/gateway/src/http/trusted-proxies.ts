import proxyAddr from '@fastify/proxy-addr';

// Distinct addresses remembered before starting over: the peers a gateway sees (its proxies, and the clients they
// forward) are far fewer at a time, and a flood of new ones costs a parse each, as without it.
const MAX_REMEMBERED = 10_000;
// Client addresses are personal data (docs/privacy.md): none is kept longer than this, however quiet the gateway.
const FORGET_AFTER_MS = 10 * 60 * 1000;

/**
 * Fastify's `trustProxy` for the configured proxies (addresses or CIDR blocks), remembering each address's answer.
 * Fastify asks it about the peer and each `X-Forwarded-For` hop on every read of `request.ip`, and @fastify/proxy-addr
 * parses the address with ipaddr.js each time: 4–5 % of the gateway's CPU for a QR image from memory (B6), which reads
 * the address for its per-address limit. Whether an address is trusted depends on the address alone (the hop's
 * position is not part of a list's answer), so an answer once given holds.
 */
export function rememberingTrust(trusted: readonly string[], maxRemembered = MAX_REMEMBERED): (address: string, hop: number) => boolean {
  const trust = proxyAddr.compile([...trusted]);
  const answers = new Map<string, boolean>();
  setInterval(() => answers.clear(), FORGET_AFTER_MS).unref();
  return (address, hop) => {
    let answer = answers.get(address);
    if (answer === undefined) {
      answer = trust(address, hop);
      if (answers.size >= maxRemembered) answers.clear();
      answers.set(address, answer);
    }
    return answer;
  };
}
