import { isIPv6 } from 'node:net';

/**
 * The client a peer address stands for, as every per-client limit counts it (the gateway's HTTP limits, the mail
 * relay's SMTP ones): an IPv4 address itself (also as an IPv4-mapped IPv6 address, on a dual-stack listener), an IPv6
 * address by its /64, the block one host or home is given. Counted by address, one IPv6 client would have 2^64
 * of them, and a guesser moving through its own block would never meet the unknown-code limit.
 */
export function clientNetworkOf(address: string): string {
  // Most clients: IPv4, no colon at all (the hot routes' limits ask on every request).
  if (address.indexOf(':') < 0) return address;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1];
  const bare = address.split('%')[0].toLowerCase();
  if (!isIPv6(bare)) return address;
  // `::` stands for as many zero groups as the address lacks; a dotted IPv4 tail is two groups.
  const [head, tail] = bare.split('::').map((part) => (part ? part.split(':') : []));
  const width = (groups: string[]) => groups.reduce((sum, group) => sum + (group.includes('.') ? 2 : 1), 0);
  const groups = tail ? [...head, ...Array<string>(8 - width(head) - width(tail)).fill('0'), ...tail] : head;
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}
