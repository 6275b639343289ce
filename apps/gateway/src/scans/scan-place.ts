import { BlockList, isIPv4 } from 'node:net';
import geoip from 'fast-geoip';
import type { DeviceKind } from '@homing/contracts';

/** Where a scan came from, as far as an offline database knows the address: a city and a country, never finer. */
export interface ScanPlace {
  city: string | null;
  country: string | null;
}

const UNKNOWN: ScanPlace = { city: null, country: null };

// Addresses that name no place: private networks, loopback, link-local, carrier-grade NAT, documentation, multicast.
// The database answers something for them anyway (127.0.0.1 "is" in Japan), so they never reach it.
const PLACELESS = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  PLACELESS.addSubnet(network, prefix, 'ipv4');
}

/**
 * The city and country of a client address from fast-geoip's bundled GeoLite2 data, read from disk: no call to
 * anyone. The database is IPv4 only; an IPv6 address (other than an IPv4-mapped one) has no place.
 */
export async function placeOf(address: string): Promise<ScanPlace> {
  const ipv4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (!isIPv4(ipv4) || PLACELESS.check(ipv4, 'ipv4')) return UNKNOWN;
  try {
    const found = await geoip.lookup(ipv4);
    if (!found) return UNKNOWN;
    return { city: found.city ? found.city.slice(0, 200) : null, country: /^[A-Z]{2}$/.test(found.country) ? found.country : null };
  } catch {
    // A missing or unreadable data file costs the place, never the scan.
    return UNKNOWN;
  }
}

// Tablets first: an iPad or an Android tablet also says "Mobile" in places, and Android phones say both.
const TABLET = /iPad|Tablet|PlayBook|Silk|Kindle|Android(?!.*Mobile)/i;
const PHONE = /iPhone|iPod|Android.*Mobile|Mobile Safari|Windows Phone|IEMobile|Opera Mini|BlackBerry|webOS|Mobile/i;
const DESKTOP = /Windows NT|Macintosh|Mac OS X|X11|Linux x86_64|CrOS/i;

/**
 * What kind of device a User-Agent names, and nothing more: the string itself is never kept. A few patterns rather
 * than a parser library: the kind is all we show, and the full parsers worth using are AGPL.
 */
export function deviceKindOf(userAgent: string | undefined): DeviceKind {
  if (!userAgent) return 'other';
  if (TABLET.test(userAgent)) return 'tablet';
  if (PHONE.test(userAgent)) return 'phone';
  if (DESKTOP.test(userAgent)) return 'desktop';
  return 'other';
}
