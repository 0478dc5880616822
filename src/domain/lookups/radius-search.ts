import { MAX_RADIUS_MILES } from '../matching/candidates/generate-candidates.ts';
import { normalizeInput } from '../matching/normalize/person.ts';
import type { FieldMap, PersonLookups } from './person-lookups.ts';
import { nameSimilarity } from './person-lookups.ts';

export interface RadiusSearch {
  first: string;
  last: string;
  middle?: string | undefined;
  suffix?: string | undefined;
  lat: number;
  lon: number;
  radiusMiles: number;
  /** 1-100. */
  maxResults: number;
  gender: 'm' | 'f' | 'u' | 'a';
  ageMin?: number | undefined;
  ageMax?: number | undefined;
  compositeMin?: number | undefined;
  compositeMax?: number | undefined;
  lastNameExact: boolean;
  lastNameIsPrefix: boolean;
  lastNamePrefixLength: number;
}

export interface RadiusResult {
  similarity_score: number;
  distance_km: number;
  distance_meters: number;
  distance_miles: number;
  distance_feet: number;
  proximity_score: number;
  composite_score: number;
  uniqueness_score: number;
  confidence_indicator: string;
  'sm.score': number;
  'sm.explain': string;
  data_fields: FieldMap;
}

/** Candidates the matcher ranks before the search's own filters cut them (max_results of 100 × 3). */
const RANKED = 300;
const EARTH_MILES = 3958.8;

/**
 * clients.md 27, our proximity strategy: the matcher's "similar name within a radius" candidates
 * (map cell + surname sound, map cell + first-name group, within min(radius, 25 miles), the
 * candidate stage's widest) ranked whatever their evidence, then kept within the radius and the
 * filters. Per result: similarity_score (mean Jaro-Winkler of the normalized first and last
 * names, 0-100), proximity_score (100 at the point, 0 at the radius), composite_score
 * (0.7 similarity + 0.3 proximity), uniqueness_score (100 ÷ (1 + the voters the file's name
 * frequencies expect to share the full name)), confidence_indicator (from the composite), and the
 * matcher's own sm.score and sm.explain.
 */
export async function radiusSearch(
  lookups: PersonLookups,
  search: RadiusSearch,
  now: Date,
): Promise<RadiusResult[]> {
  const query = normalizeInput({ first_name: search.first, last_name: search.last }, now).persons[0];
  const first = query?.first ?? '';
  const last = query?.last ?? '';
  const found = await lookups.match(
    {
      first_name: search.first,
      last_name: search.last,
      ...(search.middle === undefined ? {} : { middle_name: search.middle }),
      ...(search.suffix === undefined ? {} : { name_suffix: search.suffix }),
      latitude: String(search.lat),
      longitude: String(search.lon),
    },
    RANKED,
    { rank: true, searchRadiusMiles: Math.min(MAX_RADIUS_MILES, search.radiusMiles) },
  );
  const results: RadiusResult[] = [];
  const prefix = last.slice(0, search.lastNamePrefixLength);
  const year = now.getUTCFullYear() * 10_000 + (now.getUTCMonth() + 1) * 100 + now.getUTCDate();
  for (const { part, candidate } of found) {
    const [vFirst = '', vLast = '', lat = '', lon = '', gender = '', dob = ''] = lookups.values(
      part,
      candidate.voter,
      ['first_name', 'last_name', 'latitude', 'longitude', 'gender', 'dob'],
    );
    const voter = normalizeInput({ first_name: vFirst, last_name: vLast }, now).persons[0];
    const voterFirst = voter?.first ?? '';
    const voterLast = voter?.last ?? '';
    if (search.lastNameIsPrefix ? !voterLast.startsWith(prefix) : search.lastNameExact && voterLast !== last)
      continue;
    const miles = distanceMiles(search.lat, search.lon, Number(lat), Number(lon));
    if (!(miles <= search.radiusMiles)) continue;
    const g = gender.trim().toUpperCase();
    const voterGender = g === 'M' ? 'm' : g === 'F' ? 'f' : 'u';
    if (search.gender !== 'a' && voterGender !== search.gender) continue;
    if (search.ageMin !== undefined || search.ageMax !== undefined) {
      if (!/^\d{8}$/.test(dob)) continue;
      const age = Math.floor((year - Number(dob)) / 10_000);
      if (
        (search.ageMin !== undefined && age < search.ageMin) ||
        (search.ageMax !== undefined && age > search.ageMax)
      )
        continue;
    }
    const similarity = nameSimilarity(first, last, voterFirst, voterLast);
    const proximity = Math.round(100 * Math.max(0, 1 - miles / search.radiusMiles));
    const composite = Math.round(0.7 * similarity + 0.3 * proximity);
    if (search.compositeMin !== undefined && composite < search.compositeMin) continue;
    if (search.compositeMax !== undefined && composite > search.compositeMax) continue;
    const d = part.index.data.dictionaries;
    const namesakes =
      (d.first.count(d.first.idOf(voterFirst)) * d.last.count(d.last.idOf(voterLast))) /
      Math.max(1, part.index.size);
    const km = miles * 1.609344;
    results.push({
      similarity_score: similarity,
      distance_km: round(km, 3),
      distance_meters: round(km * 1000, 1),
      distance_miles: round(miles, 3),
      distance_feet: round(miles * 5280, 1),
      proximity_score: proximity,
      composite_score: composite,
      uniqueness_score: Math.round(100 / (1 + namesakes)),
      confidence_indicator: confidenceOf(composite),
      'sm.score': Math.round(candidate.score),
      'sm.explain': candidate.explain ?? '',
      data_fields: lookups.record(part, candidate.voter),
    });
  }
  results.sort(
    (a, b) =>
      b.composite_score - a.composite_score ||
      b['sm.score'] - a['sm.score'] ||
      a.distance_miles - b.distance_miles,
  );
  return results.slice(0, search.maxResults);
}

/** Words for a composite score. */
export function confidenceOf(composite: number): string {
  if (composite >= 90) return 'Excellent Match';
  if (composite >= 80) return 'Very Good Match';
  if (composite >= 70) return 'Good Match';
  if (composite >= 60) return 'Fair Match';
  return 'Poor Match';
}

/** Great-circle distance (haversine), miles; NaN when a coordinate is missing. */
export function distanceMiles(lat1: number, lon1: number, lat2: number, lon2: number): number {
  const rad = Math.PI / 180;
  const dLat = (lat2 - lat1) * rad;
  const dLon = (lon2 - lon1) * rad;
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * rad) * Math.cos(lat2 * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_MILES * Math.asin(Math.min(1, Math.sqrt(a)));
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
