import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Sfc32 } from '../../../lab/synthetic/random.ts';
import { distanceMiles } from '../score/compare-person.ts';
import { radiusTest, reachInBand } from './within-radius.ts';

describe('radiusTest', () => {
  it('decides exactly as the great-circle distance, at every latitude, radius and bearing', () => {
    let seed = 99;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let near = 0;
    for (let i = 0; i < 200_000; i++) {
      const lat = -85 + random() * 170;
      const lon = -180 + random() * 360;
      const radius = 0.5 + random() * 30;
      const within = radiusTest(lat, lon, radius);
      // Points around the circle's edge (0.9-1.1 radii), where a shortcut would go wrong first.
      const miles = radius * (0.9 + random() * 0.2);
      const bearing = random() * 2 * Math.PI;
      const vLat = Math.max(-89.9, Math.min(89.9, lat + (miles / 69.09) * Math.cos(bearing)));
      let vLon =
        lon + ((miles / 69.09) * Math.sin(bearing)) / Math.max(0.05, Math.cos((lat * Math.PI) / 180));
      if (vLon > 180) vLon -= 360;
      if (vLon < -180) vLon += 360;
      const exact = distanceMiles(lat, lon, vLat, vLon) <= radius;
      if (Math.abs(distanceMiles(lat, lon, vLat, vLon) - radius) < radius * 0.02) near++;
      assert.equal(within(vLat, vLon), exact, `lat ${lat} lon ${lon} radius ${radius} → ${vLat}, ${vLon}`);
    }
    assert.ok(near > 10_000, 'the sample holds many points close to the edge');
  });

  it('finds a point just across the antimeridian', () => {
    const within = radiusTest(51.9, 179.99, 5);
    assert.equal(within(51.9, -179.99), true);
    assert.equal(within(51.9, -179.0), false);
  });
});

describe('reachInBand', () => {
  it('bounds every point radiusTest accepts, in the band of its latitude', () => {
    const rng = new Sfc32(7, 8, 9);
    const random = () => rng.float();
    const band = 0.02;
    let accepted = 0;
    for (let q = 0; q < 300; q++) {
      const lat = -74 + random() * 148;
      const lon = -179 + random() * 358;
      const radius = 0.5 + random() * 30;
      const within = radiusTest(lat, lon, radius);
      for (let p = 0; p < 300; p++) {
        // Points around the circle's edge, where rounding would show.
        const vLat = lat + (random() - 0.5) * 2.2 * (radius / 69);
        const vLon = lon + (random() - 0.5) * 2.2 * (radius / (69 * Math.cos((lat * Math.PI) / 180)));
        if (!within(vLat, vLon)) continue;
        accepted++;
        const south = Math.floor((vLat + 90) / band) * band - 90;
        const reach = reachInBand(lat, radius, south, south + band);
        assert.ok(
          reach >= Math.abs(vLon - lon),
          `(${lat}, ${lon}) r ${radius}: (${vLat}, ${vLon}) beyond ${reach}`,
        );
      }
    }
    assert.ok(accepted > 10_000);
  });

  it('leaves out bands beyond the radius, and bounds nothing where the test is exact', () => {
    assert.equal(reachInBand(40, 1, 40.5, 40.52), -1);
    assert.ok(reachInBand(40, 1, 39.99, 40.01) > 1 / 69);
    assert.equal(reachInBand(80, 1, 80, 80.02), Number.POSITIVE_INFINITY);
    assert.equal(reachInBand(40, 150, 40, 40.02), Number.POSITIVE_INFINITY);
  });
});
