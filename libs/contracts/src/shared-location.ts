// Where a finder found an item, as stored and linked: rounding and the map link, in a module without schemas, so the
// finder page's share-location step imports them without zod. The body's and the entry's schemas are in scans.ts.
import type { SharedLocation, ShareLocationBody } from './scans';

/** Decimal places a coarse location keeps (0.01° ≈ 1.1 km), and a precise one (≈ 1 m). */
export const COARSE_LOCATION_DECIMALS = 2;
export const PRECISE_LOCATION_DECIMALS = 5;
/** A coarse location never claims to be better than this. */
export const COARSE_LOCATION_MIN_ACCURACY_M = 1000;

/** Rounds a finder's position as it will be stored: to about 1 km unless they chose precise. */
export function roundSharedLocation(body: ShareLocationBody): SharedLocation {
  const decimals = body.precise ? PRECISE_LOCATION_DECIMALS : COARSE_LOCATION_DECIMALS;
  const round = (value: number) => Number(value.toFixed(decimals)) || 0;
  const accuracy = Math.round(body.accuracy_m);
  return { lat: round(body.lat), lon: round(body.lon), accuracy_m: body.precise ? accuracy : Math.max(accuracy, COARSE_LOCATION_MIN_ACCURACY_M), precise: body.precise };
}

/** A map of the place on openstreetmap.org: a link the reader follows, never a script on our page. */
export function mapLinkOf(location: Pick<SharedLocation, 'lat' | 'lon' | 'precise'>): string {
  const zoom = location.precise ? 17 : 14;
  return `https://www.openstreetmap.org/?mlat=${location.lat}&mlon=${location.lon}#map=${zoom}/${location.lat}/${location.lon}`;
}
