import type { TFunction } from 'i18next';
import { COARSE_LOCATION_DECIMALS, PRECISE_LOCATION_DECIMALS, type SharedLocation } from '@homing/contracts';

/**
 * A shared place in words: "52.37, 4.90 (within about 1 km)" or "52.37403, 4.88969 (exact position)". Coordinates keep
 * their dot and every decimal the server keeps, in every language: they are read off, or typed into a map.
 */
export function placeText(t: TFunction, location: SharedLocation, language: string): string {
  const decimals = location.precise ? PRECISE_LOCATION_DECIMALS : COARSE_LOCATION_DECIMALS;
  const position = `${location.lat.toFixed(decimals)}, ${location.lon.toFixed(decimals)}`;
  if (location.precise) return t('shareLocation.placePrecise', { position });
  return t('shareLocation.placeCoarse', { position, distance: distanceText(location.accuracy_m, language) });
}

// Whole kilometres from 1 km on (a coarse place is never better than that), metres below.
function distanceText(meters: number, language: string): string {
  const [value, unit] = meters >= 1000 ? [Math.round(meters / 1000), 'kilometer'] : [Math.round(meters), 'meter'];
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'short' }).format(value);
}
