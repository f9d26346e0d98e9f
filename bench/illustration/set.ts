/**
 * The illustration set: our own content, drawn here as SVG and rendered by sharp (librsvg), so its
 * licence is ours (MIT, the repository's). Eight 384x256 images of the kinds the `content` hint names: line art,
 * flat-colour drawings, UI screenshots, text and a chart. Deterministic shapes (a seeded LCG); the text's glyphs
 * come from the fonts fontconfig finds (DejaVu / Liberation on our machines), so a machine with other fonts draws
 * slightly other pixels.
 */
import sharp from 'sharp';

export const WIDTH = 384;
export const HEIGHT = 256;

export interface IllustrationCase {
  name: string;
  kind: string;
  svg: string;
}

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const svg = (body: string, background = 'white') =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}">` +
  `<rect width="${WIDTH}" height="${HEIGHT}" fill="${background}"/>${body}</svg>`;

const f = (v: number) => v.toFixed(1);

/** Ink drawing: smooth curves and circles of 1-4 px strokes, black on paper white. */
function lineArt(seed: number): string {
  const r = lcg(seed);
  let body = '';
  for (let i = 0; i < 14; i++) {
    const x0 = r() * WIDTH;
    const y0 = r() * HEIGHT;
    const p = Array.from({ length: 6 }, () => [r() * WIDTH, r() * HEIGHT]);
    body += `<path d="M${f(x0)} ${f(y0)} C${p
      .slice(0, 3)
      .map(([x, y]) => `${f(x)} ${f(y)}`)
      .join(' ')} S${p
      .slice(3, 5)
      .map(([x, y]) => `${f(x)} ${f(y)}`)
      .join(' ')}" fill="none" stroke="#111" stroke-width="${f(1 + r() * 3)}" stroke-linecap="round"/>`;
  }
  for (let i = 0; i < 6; i++) {
    body += `<circle cx="${f(r() * WIDTH)}" cy="${f(r() * HEIGHT)}" r="${f(8 + r() * 40)}" fill="none" stroke="#111" stroke-width="${f(1 + r() * 2)}"/>`;
  }
  // Hatching: parallel thin lines, the hardest case for a network that smooths.
  const hx = 20 + r() * 200;
  const hy = 20 + r() * 120;
  for (let k = 0; k < 12; k++)
    body += `<line x1="${f(hx + k * 5)}" y1="${f(hy)}" x2="${f(hx + k * 5 + 30)}" y2="${f(hy + 80)}" stroke="#111" stroke-width="1"/>`;
  return svg(body, '#fbfaf5');
}

/** Cel-shaded cartoon: flat fills from a small palette, 3 px dark outlines, a shadow tone per shape. */
function flatColour(seed: number): string {
  const r = lcg(seed);
  const palette = ['#f4a261', '#e76f51', '#2a9d8f', '#e9c46a', '#8ab17d', '#6d597a', '#b56576', '#ffd6a5'];
  let body = `<rect width="${WIDTH}" height="${HEIGHT * 0.4}" y="${HEIGHT * 0.6}" fill="#a7c957"/>`;
  body += `<circle cx="${f(60 + r() * 260)}" cy="46" r="28" fill="#ffd166" stroke="#3d2c2e" stroke-width="3"/>`;
  for (let i = 0; i < 9; i++) {
    const cx = 30 + r() * (WIDTH - 60);
    const cy = 40 + r() * (HEIGHT - 80);
    const rx = 18 + r() * 45;
    const ry = 14 + r() * 35;
    const fill = palette[Math.floor(r() * palette.length)];
    const rot = f(r() * 180);
    body += `<g transform="rotate(${rot} ${f(cx)} ${f(cy)})">`;
    body +=
      i % 3 === 0
        ? `<rect x="${f(cx - rx)}" y="${f(cy - ry)}" width="${f(2 * rx)}" height="${f(2 * ry)}" rx="8" fill="${fill}" stroke="#3d2c2e" stroke-width="3"/>`
        : `<ellipse cx="${f(cx)}" cy="${f(cy)}" rx="${f(rx)}" ry="${f(ry)}" fill="${fill}" stroke="#3d2c2e" stroke-width="3"/>`;
    body += `<ellipse cx="${f(cx + rx * 0.3)}" cy="${f(cy + ry * 0.35)}" rx="${f(rx * 0.45)}" ry="${f(ry * 0.3)}" fill="#000" fill-opacity="0.18"/>`;
    // eyes: small dark dots with a white highlight, as in character drawings
    if (i % 2 === 1) {
      for (const dx of [-0.3, 0.3]) {
        body += `<circle cx="${f(cx + dx * rx)}" cy="${f(cy - ry * 0.2)}" r="4" fill="#3d2c2e"/><circle cx="${f(cx + dx * rx + 1.5)}" cy="${f(cy - ry * 0.2 - 1.5)}" r="1.3" fill="#fff"/>`;
      }
    }
    body += '</g>';
  }
  return svg(body, '#bde0fe');
}

const SANS = 'font-family="DejaVu Sans, Liberation Sans, sans-serif"';
const MONO = 'font-family="DejaVu Sans Mono, Liberation Mono, monospace"';

/** An application window: title bar, toolbar, buttons, a form, checkboxes and a table with 1 px rules. */
function uiScreenshot(dark: boolean): string {
  const bg = dark ? '#1e1f24' : '#f6f7f9';
  const panel = dark ? '#2a2c33' : '#ffffff';
  const fg = dark ? '#e6e6e6' : '#1f2328';
  const muted = dark ? '#9aa0a6' : '#656d76';
  const rule = dark ? '#3b3e47' : '#d0d7de';
  let b = `<rect width="${WIDTH}" height="26" fill="${dark ? '#111216' : '#e7e9ec'}"/>`;
  ['#ff5f57', '#febc2e', '#28c840'].forEach((c, i) => (b += `<circle cx="${14 + i * 16}" cy="13" r="5" fill="${c}"/>`));
  b += `<text x="192" y="17" text-anchor="middle" ${SANS} font-size="11" fill="${muted}">Upscaler — Jobs</text>`;
  b += `<rect x="10" y="36" width="364" height="210" rx="6" fill="${panel}" stroke="${rule}"/>`;
  b += `<text x="22" y="58" ${SANS} font-size="14" font-weight="bold" fill="${fg}">New job</text>`;
  b += `<text x="22" y="82" ${SANS} font-size="11" fill="${muted}">Target</text>`;
  b += `<rect x="72" y="70" width="100" height="18" rx="3" fill="${bg}" stroke="${rule}"/><text x="78" y="83" ${SANS} font-size="11" fill="${fg}">4k (9 credits)</text>`;
  b += `<path d="M160 77 l4 4 l4 -4" fill="none" stroke="${muted}" stroke-width="1.5"/>`;
  ['Keep transparency', 'Notify by webhook'].forEach((label, i) => {
    const y = 100 + i * 18;
    b += `<rect x="22" y="${y}" width="11" height="11" rx="2" fill="${i === 0 ? '#0969da' : panel}" stroke="${i === 0 ? '#0969da' : rule}"/>`;
    if (i === 0) b += `<path d="M24.5 ${y + 5.5} l2.5 2.5 l4 -5" fill="none" stroke="#fff" stroke-width="1.6"/>`;
    b += `<text x="40" y="${y + 10}" ${SANS} font-size="11" fill="${fg}">${label}</text>`;
  });
  b += `<rect x="200" y="68" width="74" height="24" rx="5" fill="#1f883d"/><text x="237" y="84" text-anchor="middle" ${SANS} font-size="11" font-weight="bold" fill="#fff">Upscale</text>`;
  b += `<rect x="282" y="68" width="80" height="24" rx="5" fill="${panel}" stroke="${rule}"/><text x="322" y="84" text-anchor="middle" ${SANS} font-size="11" fill="${fg}">Cancel</text>`;
  const cols = [22, 132, 212, 292];
  b += `<line x1="10" y1="146" x2="374" y2="146" stroke="${rule}"/>`;
  ['Job', 'Status', 'Target', 'Credits'].forEach(
    (h, i) => (b += `<text x="${cols[i]}" y="162" ${SANS} font-size="10" font-weight="bold" fill="${muted}">${h}</text>`),
  );
  const rows = [
    ['job_0190a1b2', 'succeeded', '4k', '9'],
    ['job_0190a1c7', 'processing', '2k', '3'],
    ['job_0190a1d3', 'queued', '3k', '6'],
    ['job_0190a1e9', 'failed', '4k', '0'],
  ];
  rows.forEach((row, j) => {
    const y = 182 + j * 17;
    b += `<line x1="10" y1="${y - 13}" x2="374" y2="${y - 13}" stroke="${rule}"/>`;
    row.forEach((cell, i) => {
      const color =
        i === 1 ? ({ succeeded: '#1a7f37', processing: '#9a6700', queued: muted, failed: '#cf222e' } as Record<string, string>)[cell] : fg;
      b += `<text x="${cols[i]}" y="${y}" ${i === 0 ? MONO : SANS} font-size="10" fill="${color}">${cell}</text>`;
    });
  });
  return svg(b, bg);
}

/** Text: a heading, body text at 9-13 px and a code block. */
function textPage(): string {
  const lines = [
    'Illustrations are not photographs: their edges are',
    'hard, their colours flat, and their lines one pixel',
    'wide. A network trained on photos smooths them; one',
    'trained on drawings keeps them crisp. Which wins?',
  ];
  let b = `<text x="16" y="30" ${SANS} font-size="20" font-weight="bold" fill="#1f2328">The content hint</text>`;
  lines.forEach((l, i) => (b += `<text x="16" y="${56 + i * 17}" ${SANS} font-size="13" fill="#1f2328">${l}</text>`));
  b += `<text x="16" y="134" ${SANS} font-size="9" fill="#57606a">Small print at nine pixels: 0123456789 ABCDEFGHIJKLMNOPQRSTUVWXYZ</text>`;
  b += `<rect x="12" y="146" width="360" height="98" rx="4" fill="#f6f8fa" stroke="#d0d7de"/>`;
  const code = [
    'curl -X POST /api/v1/upscale \\',
    '  -H "Authorization: Bearer $KEY" \\',
    '  -F image=@drawing.png \\',
    '  -F quality=balanced -F content=illustration',
  ];
  code.forEach(
    (l, i) => (b += `<text x="22" y="${168 + i * 18}" ${MONO} font-size="11" fill="#0550ae">${l.replace(/&/g, '&amp;')}</text>`),
  );
  return svg(b, '#ffffff');
}

/** A bar chart with axes, ticks, grid lines, labels and a legend. */
function chart(): string {
  const values = [42, 67, 55, 81, 73, 94];
  let b = `<text x="192" y="20" text-anchor="middle" ${SANS} font-size="12" font-weight="bold" fill="#24292f">Jobs per hour</text>`;
  for (let k = 0; k <= 4; k++) {
    const y = 220 - k * 45;
    b += `<line x1="44" y1="${y}" x2="370" y2="${y}" stroke="${k === 0 ? '#24292f' : '#d8dee4'}" stroke-width="1"/>`;
    b += `<text x="38" y="${y + 4}" text-anchor="end" ${SANS} font-size="9" fill="#57606a">${k * 25}</text>`;
  }
  b += `<line x1="44" y1="40" x2="44" y2="220" stroke="#24292f"/>`;
  values.forEach((v, i) => {
    const x = 58 + i * 52;
    const h = (v / 100) * 180;
    b += `<rect x="${x}" y="${f(220 - h)}" width="30" height="${f(h)}" fill="${i % 2 ? '#54aeff' : '#0969da'}"/>`;
    b += `<text x="${x + 15}" y="236" text-anchor="middle" ${SANS} font-size="9" fill="#57606a">${String(9 + i).padStart(2, '0')}:00</text>`;
  });
  const pts = values.map((v, i) => `${73 + i * 52},${f(220 - (v / 100) * 150)}`).join(' ');
  b += `<polyline points="${pts}" fill="none" stroke="#cf222e" stroke-width="2"/>`;
  values.forEach(
    (v, i) => (b += `<circle cx="${73 + i * 52}" cy="${f(220 - (v / 100) * 150)}" r="3" fill="#fff" stroke="#cf222e" stroke-width="1.5"/>`),
  );
  b += `<rect x="290" y="30" width="10" height="10" fill="#0969da"/><text x="304" y="39" ${SANS} font-size="9" fill="#24292f">jobs</text>`;
  b += `<line x1="330" y1="35" x2="342" y2="35" stroke="#cf222e" stroke-width="2"/><text x="345" y="39" ${SANS} font-size="9" fill="#24292f">p95</text>`;
  return svg(b, '#ffffff');
}

export const CASES: IllustrationCase[] = [
  { name: 'lineart-a', kind: 'line art (ink curves, hatching)', svg: lineArt(18) },
  { name: 'lineart-b', kind: 'line art (ink curves, hatching)', svg: lineArt(2026) },
  { name: 'flat-a', kind: 'flat-colour drawing (cel shading, outlines)', svg: flatColour(7) },
  { name: 'flat-b', kind: 'flat-colour drawing (cel shading, outlines)', svg: flatColour(99) },
  { name: 'ui-light', kind: 'UI screenshot (light theme)', svg: uiScreenshot(false) },
  { name: 'ui-dark', kind: 'UI screenshot (dark theme)', svg: uiScreenshot(true) },
  { name: 'text', kind: 'text (9-20 px, a code block)', svg: textPage() },
  { name: 'chart', kind: 'chart (bars, line, axes, labels)', svg: chart() },
];

/** The case rendered by sharp (librsvg at 72 dpi: one SVG unit per pixel), RGB 8-bit, as PNG bytes. */
export async function render(c: IllustrationCase): Promise<Buffer> {
  return sharp(Buffer.from(c.svg), { density: 72 }).removeAlpha().png().toBuffer();
}
