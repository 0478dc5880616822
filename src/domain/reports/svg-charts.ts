/**
 * Hand-made inline SVG charts for the evaluation report: no scripts, no external assets, no
 * fonts beyond the browser's default. Every chart has a `<title>` (its accessible name) and a
 * legend; values sit in `<title>` elements of the marks (shown as tooltips).
 */

export interface Series {
  name: string;
  color: string;
  /** y values (null: no value, the line breaks / the bar is left out). */
  values: readonly (number | null)[];
}

const WIDTH = 720;
const HEIGHT = 320;
const MARGIN = { top: 40, right: 20, bottom: 56, left: 56 };
const PLOT_W = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_H = HEIGHT - MARGIN.top - MARGIN.bottom;

/** Escapes text for HTML and SVG content and attribute values. */
export function escapeHtml(value: string): string {
  return value
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const n = (value: number): string => (Math.round(value * 10) / 10).toString();

function open(title: string, id: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" ` +
    `role="img" aria-labelledby="${id}-title" class="chart" id="${id}">` +
    `<title id="${id}-title">${escapeHtml(title)}</title>` +
    `<text x="${WIDTH / 2}" y="20" text-anchor="middle" class="chart-title">${escapeHtml(title)}</text>`
  );
}

function legend(items: readonly { name: string; color: string }[]): string {
  let x = MARGIN.left;
  const y = HEIGHT - 12;
  let out = '';
  for (const item of items) {
    out +=
      `<rect x="${n(x)}" y="${y - 9}" width="12" height="12" fill="${item.color}" />` +
      `<text x="${n(x + 16)}" y="${y + 1}" class="legend">${escapeHtml(item.name)}</text>`;
    x += 28 + item.name.length * 7;
  }
  return out;
}

/** Axes with ticks; `yTicks` as [value, label] on a 0..yMax scale. */
function axes(
  xTicks: readonly [number, string][],
  xMax: number,
  yTicks: readonly [number, string][],
  yMax: number,
  xLabel: string,
  yLabel: string,
): string {
  const x0 = MARGIN.left;
  const y0 = MARGIN.top + PLOT_H;
  let out = `<g class="axes"><line x1="${x0}" y1="${y0}" x2="${x0 + PLOT_W}" y2="${y0}" stroke="#444" />`;
  out += `<line x1="${x0}" y1="${MARGIN.top}" x2="${x0}" y2="${y0}" stroke="#444" />`;
  for (const [value, label] of yTicks) {
    const y = y0 - (value / yMax) * PLOT_H;
    out +=
      `<line x1="${x0}" y1="${n(y)}" x2="${x0 + PLOT_W}" y2="${n(y)}" stroke="#ddd" />` +
      `<text x="${x0 - 6}" y="${n(y + 4)}" text-anchor="end" class="tick">${escapeHtml(label)}</text>`;
  }
  for (const [value, label] of xTicks) {
    const x = x0 + (value / xMax) * PLOT_W;
    out +=
      `<line x1="${n(x)}" y1="${y0}" x2="${n(x)}" y2="${y0 + 4}" stroke="#444" />` +
      `<text x="${n(x)}" y="${y0 + 16}" text-anchor="middle" class="tick">${escapeHtml(label)}</text>`;
  }
  out += `<text x="${x0 + PLOT_W / 2}" y="${y0 + 32}" text-anchor="middle" class="axis-label">${escapeHtml(xLabel)}</text>`;
  out += `<text transform="translate(14 ${MARGIN.top + PLOT_H / 2}) rotate(-90)" text-anchor="middle" class="axis-label">${escapeHtml(yLabel)}</text>`;
  return `${out}</g>`;
}

const RATE_TICKS: [number, string][] = [0, 0.2, 0.4, 0.6, 0.8, 1].map((v) => [v, v.toFixed(1)]);
const SCORE_TICKS: [number, string][] = [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map((v) => [
  v,
  String(v),
]);

/**
 * Lines over x = 0..xMax (one value per integer x), y on 0..1. A null value breaks the line.
 */
export function lineChart(options: {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  xMax: number;
  series: readonly Series[];
}): string {
  const { xMax } = options;
  let out = open(options.title, options.id);
  out += axes(SCORE_TICKS, xMax, RATE_TICKS, 1, options.xLabel, options.yLabel);
  for (const series of options.series) {
    let d = '';
    let pen = false;
    series.values.forEach((value, x) => {
      if (value === null) {
        pen = false;
        return;
      }
      const px = MARGIN.left + (x / xMax) * PLOT_W;
      const py = MARGIN.top + PLOT_H - value * PLOT_H;
      d += `${pen ? 'L' : 'M'}${n(px)} ${n(py)} `;
      pen = true;
    });
    out +=
      `<path d="${d.trim()}" fill="none" stroke="${series.color}" stroke-width="2" class="series">` +
      `<title>${escapeHtml(series.name)}</title></path>`;
  }
  out += legend(options.series);
  return `${out}</svg>`;
}

/** Grouped bars: one group per category, one bar per series, y on 0..1. */
export function groupedBarChart(options: {
  id: string;
  title: string;
  yLabel: string;
  categories: readonly string[];
  series: readonly Series[];
}): string {
  let out = open(options.title, options.id);
  out += axes([], 1, RATE_TICKS, 1, '', options.yLabel);
  const groups = Math.max(1, options.categories.length);
  const groupW = PLOT_W / groups;
  const barW = Math.max(2, (groupW * 0.8) / Math.max(1, options.series.length));
  const y0 = MARGIN.top + PLOT_H;
  options.categories.forEach((category, g) => {
    const gx = MARGIN.left + g * groupW + groupW * 0.1;
    options.series.forEach((series, s) => {
      const value = series.values[g] ?? null;
      const label = `${category}: ${series.name} ${value === null ? 'n/a' : value.toFixed(4)}`;
      if (value === null) return;
      const h = value * PLOT_H;
      out +=
        `<rect x="${n(gx + s * barW)}" y="${n(y0 - h)}" width="${n(barW - 1)}" height="${n(h)}" fill="${series.color}" class="bar">` +
        `<title>${escapeHtml(label)}</title></rect>`;
    });
    out += `<text x="${n(MARGIN.left + g * groupW + groupW / 2)}" y="${y0 + 16}" text-anchor="middle" class="tick">${escapeHtml(truncate(category, Math.max(4, Math.floor(groupW / 7))))}</text>`;
  });
  out += legend(options.series);
  return `${out}</svg>`;
}

/**
 * Overlaid histograms over score bins: each series' bars share the bin's x range and are
 * semi-transparent so overlaps show. `values` are the heights (any non-negative scale);
 * `labels` the tooltip text per bin and series.
 */
export function overlaidHistogram(options: {
  id: string;
  title: string;
  xLabel: string;
  yLabel: string;
  bins: readonly { from: number; to: number }[];
  series: readonly (Series & { labels: readonly string[] })[];
}): string {
  let out = open(options.title, options.id);
  const yMax = niceMax(Math.max(0, ...options.series.flatMap((s) => s.values.map((v) => v ?? 0))));
  // Fifths of a 1, 2, 2.5 or 5 × 10^k maximum are round numbers.
  const yTicks: [number, string][] = [0, 0.2, 0.4, 0.6, 0.8, 1].map((f) => [f * yMax, formatTick(f * yMax)]);
  out += axes(SCORE_TICKS, 100, yTicks, yMax, options.xLabel, options.yLabel);
  const y0 = MARGIN.top + PLOT_H;
  for (const series of options.series) {
    options.bins.forEach((bin, i) => {
      const value = series.values[i] ?? null;
      if (value === null || value === 0) return;
      const x = MARGIN.left + (bin.from / 100) * PLOT_W;
      const w = ((bin.to + 1 - bin.from) / 100) * PLOT_W;
      const h = (value / yMax) * PLOT_H;
      out +=
        `<rect x="${n(x)}" y="${n(y0 - h)}" width="${n(Math.min(w, MARGIN.left + PLOT_W - x) - 1)}" height="${n(h)}" ` +
        `fill="${series.color}" fill-opacity="0.55" class="bar"><title>${escapeHtml(series.labels[i] ?? '')}</title></rect>`;
    });
  }
  out += legend(options.series);
  return `${out}</svg>`;
}

/**
 * Reliability diagram: points (x = mean score 0-100, y = fraction correct 0-1), area
 * proportional to the count, joined by a line, with the diagonal of perfect calibration.
 */
export function calibrationChart(options: {
  id: string;
  title: string;
  points: readonly { x: number; y: number; count: number; label: string }[];
}): string {
  let out = open(options.title, options.id);
  out += axes(SCORE_TICKS, 100, RATE_TICKS, 1, 'mean score of the band', 'fraction correct');
  const px = (x: number) => MARGIN.left + (x / 100) * PLOT_W;
  const py = (y: number) => MARGIN.top + PLOT_H - y * PLOT_H;
  out += `<line x1="${px(0)}" y1="${py(0)}" x2="${px(100)}" y2="${py(1)}" stroke="#999" stroke-dasharray="4 4" class="diagonal" />`;
  const maxCount = Math.max(1, ...options.points.map((p) => p.count));
  if (options.points.length > 1) {
    const d = options.points.map((p, i) => `${i === 0 ? 'M' : 'L'}${n(px(p.x))} ${n(py(p.y))}`).join(' ');
    out += `<path d="${d}" fill="none" stroke="#1f77b4" stroke-width="1.5" />`;
  }
  for (const p of options.points) {
    const r = 3 + 9 * Math.sqrt(p.count / maxCount);
    out +=
      `<circle cx="${n(px(p.x))}" cy="${n(py(p.y))}" r="${n(r)}" fill="#1f77b4" fill-opacity="0.6" class="point">` +
      `<title>${escapeHtml(p.label)}</title></circle>`;
  }
  out += legend([
    { name: 'observed (area ∝ count)', color: '#1f77b4' },
    { name: 'perfect calibration', color: '#999' },
  ]);
  return `${out}</svg>`;
}

/** A round upper bound ≥ value for an axis (1, 2, 2.5 or 5 × 10^k); 1 for 0. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** A tick value without floating-point noise (0.6000000000000001 → 0.6). */
const formatTick = (value: number): string => String(Number(value.toPrecision(6)));
const truncate = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;
