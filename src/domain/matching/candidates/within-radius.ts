import { distanceMiles, EARTH_RADIUS_MILES } from '../score/compare-person.ts';

const MILES_PER_DEGREE = (EARTH_RADIUS_MILES * Math.PI) / 180;
/**
 * The flat-earth distance below is within 1.3% of the great-circle one for the radii a search
 * uses (≤ 25 miles) up to 75° of latitude (its error is about tan(lat) × half the latitude
 * span); a point within 3% of the radius is decided by the great-circle distance.
 */
const MARGIN = 0.03;
const FLAT_MAX_LATITUDE = 75;

/**
 * Whether a voter lies within `radius` miles of (lat, lon), by the same great-circle distance
 * the scorer uses, but with the trigonometry only for points near the circle's edge: most
 * postings a radius search reads are decided by a multiply-add (the sines and arcsine were a
 * fifth of a matching thread's time).
 */
export function radiusTest(
  lat: number,
  lon: number,
  radius: number,
): (vLat: number, vLon: number) => boolean {
  if (Math.abs(lat) > FLAT_MAX_LATITUDE || radius > 100) {
    return (vLat, vLon) => distanceMiles(lat, lon, vLat, vLon) <= radius;
  }
  const xScale = MILES_PER_DEGREE * Math.cos((lat * Math.PI) / 180);
  const inner = (radius * (1 - MARGIN)) ** 2;
  const outer = (radius * (1 + MARGIN)) ** 2;
  return (vLat, vLon) => {
    const dLon = vLon - lon;
    // Across the antimeridian the flat difference is meaningless: decide exactly.
    if (dLon > 90 || dLon < -90) return distanceMiles(lat, lon, vLat, vLon) <= radius;
    const dy = (vLat - lat) * MILES_PER_DEGREE;
    const dx = dLon * xScale;
    const d2 = dx * dx + dy * dy;
    if (d2 <= inner) return true;
    if (d2 > outer) return false;
    return distanceMiles(lat, lon, vLat, vLon) <= radius;
  };
}

/**
 * How far east and west of the point (in degrees of longitude) radiusTest(lat, lon, radius) can
 * accept a point whose latitude lies in [south, north]: the flat circle of radius × (1 + MARGIN)
 * (beyond which it accepts nothing) cut at the band's latitude nearest the point. -1 when it
 * accepts no point of the band; Infinity when the test is the exact distance alone (near the
 * poles, or a radius too wide for the flat circle to bound it). A radius search reads only the
 * map cells in reach: the corners of the square around its circle hold none it could accept.
 */
export function reachInBand(lat: number, radius: number, south: number, north: number): number {
  if (Math.abs(lat) > FLAT_MAX_LATITUDE || radius > 100) return Number.POSITIVE_INFINITY;
  // A hair wider than the test's own bound, so rounding never leaves out a cell it would accept.
  const reach = radius * (1 + MARGIN) * (1 + 1e-6) + 1e-9;
  const gap = lat < south ? south - lat : lat > north ? lat - north : 0;
  const dy = gap * MILES_PER_DEGREE;
  if (dy > reach) return -1;
  const xScale = MILES_PER_DEGREE * Math.cos((lat * Math.PI) / 180);
  return Math.sqrt(reach * reach - dy * dy) / xScale + 1e-9;
}
