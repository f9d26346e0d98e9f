/**
 * The upscale form: POST /upscale (scope jobs:write) with an uploaded file (chosen, or dropped on the
 * drop zone) or an https image URL, and the target, format, quality tier and content hint (docs/api.md, "Quality
 * tiers, targets and formats" and "Content hint"; the lists come from the contracts, the API's own vocabulary). Each
 * submission carries a fresh Idempotency-Key, so a retried click cannot pay twice. The accepted job
 * is then followed in the job view.
 */
import {
  CONTENT_HINTS,
  CREDITS_OF_TARGET,
  DEFAULT_CONTENT,
  MAX_UPLOAD_BYTES,
  OUTPUT_FORMATS,
  QUALITY_TIERS,
  SCALE_OF_TARGET,
  SIZE_FITS,
  TARGETS,
} from '../../../../libs/contracts/src/job';
import { ApiError, call, newIdempotencyKey } from './api';
import { busy, byId, el, formatBytes, showError } from './dom';
import { watchJob } from './job-view';
import type { Job } from './types';

const ACCEPTED_TYPES = ['image/jpeg', 'image/png', 'image/webp', 'image/avif'];
const QUALITY_NOTES: Record<string, string> = {
  fast: 'fast: one pass of a small network',
  balanced: 'balanced: a larger network',
  best: 'best: the larger network, self-ensembled (about 8x balanced)',
  sharp: 'sharp: generative (Real-ESRGAN), much slower; inputs up to 100,000 pixels',
};
const FIT_NOTES: Record<string, string> = {
  within: 'within: inside both, aspect kept',
  cover: 'cover: fills both, overflow cropped',
  exact: 'exact: stretched to both',
};
/** The Target choice that asks for a pixel size instead (docs/api.md, "Output by pixel size"). */
const BY_SIZE = 'size';
const CONTENT_NOTES: Record<string, string> = {
  photo: 'photo',
  illustration: 'illustration: drawings, line art, screenshots (its own network at sharp)',
};

let chosen: File | null = null;
let previewUrl: string | null = null;
let onSubmitted: () => void = () => undefined;

export function whenSubmitted(handler: () => void): void {
  onSubmitted = handler;
}

export function initSubmitForm(): void {
  byId('upscale-target').replaceChildren(
    ...TARGETS.map((t) =>
      el('option', { value: t, text: `${t}: ${SCALE_OF_TARGET[t]}x width and height, ${CREDITS_OF_TARGET[t]} credits` }),
    ),
    el('option', { value: BY_SIZE, text: 'a size in pixels: the smallest target that reaches it' }),
  );
  byId('upscale-fit').replaceChildren(...SIZE_FITS.map((f) => el('option', { value: f, text: FIT_NOTES[f] ?? f })));
  const target = byId<HTMLSelectElement>('upscale-target');
  target.addEventListener('change', () => (byId('upscale-size').hidden = target.value !== BY_SIZE));
  byId('upscale-format').replaceChildren(...OUTPUT_FORMATS.map((f) => el('option', { value: f, text: f })));
  byId('upscale-quality').replaceChildren(
    el('option', { value: '', text: "the service's default" }),
    ...QUALITY_TIERS.map((q) => el('option', { value: q, text: QUALITY_NOTES[q] ?? q })),
  );
  byId('upscale-content').replaceChildren(...CONTENT_HINTS.map((c) => el('option', { value: c, text: CONTENT_NOTES[c] ?? c })));
  byId<HTMLSelectElement>('upscale-content').value = DEFAULT_CONTENT;
  const input = byId<HTMLInputElement>('upscale-file');
  input.addEventListener('change', () => choose(input.files?.[0] ?? null));
  const zone = byId('dropzone');
  zone.addEventListener('dragover', (e) => {
    e.preventDefault();
    if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (e) => {
    e.preventDefault();
    zone.classList.remove('over');
    const file = e.dataTransfer?.files[0];
    if (file) choose(file);
  });
  byId('upscale-url').addEventListener('input', () => {
    if (byId<HTMLInputElement>('upscale-url').value.trim()) choose(null);
  });
  byId('upscale-clear').addEventListener('click', () => choose(null));
  byId<HTMLFormElement>('upscale-form').addEventListener('submit', (e) => void submit(e));
}

/** The file to upload (a URL typed afterwards replaces it, and a file replaces the URL). */
function choose(file: File | null): void {
  if (previewUrl) URL.revokeObjectURL(previewUrl);
  previewUrl = null;
  chosen = file;
  const form = byId('upscale-form');
  const preview = byId<HTMLImageElement>('upscale-preview');
  const chosenBox = byId('upscale-chosen');
  if (!file) {
    byId<HTMLInputElement>('upscale-file').value = '';
    preview.removeAttribute('src');
    chosenBox.hidden = true;
    return;
  }
  byId<HTMLInputElement>('upscale-url').value = '';
  previewUrl = URL.createObjectURL(file); // the user's own file, shown from memory (img-src blob:)
  preview.src = previewUrl;
  byId('upscale-file-name').textContent = `${file.name} · ${formatBytes(file.size)}`;
  chosenBox.hidden = false;
  showError(form, null);
}

function problemWith(file: File): string | null {
  if (file.size > MAX_UPLOAD_BYTES) return `${file.name} is ${formatBytes(file.size)}: the limit is 10 MiB.`;
  if (file.type && !ACCEPTED_TYPES.includes(file.type)) return `${file.name} is ${file.type}: JPEG, PNG, WebP or AVIF only.`;
  return null;
}

async function submit(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const form = event.currentTarget as HTMLFormElement;
  const url = byId<HTMLInputElement>('upscale-url').value.trim();
  const fields: Record<string, string> = { format: byId<HTMLSelectElement>('upscale-format').value };
  const target = byId<HTMLSelectElement>('upscale-target').value;
  if (target !== BY_SIZE) fields.target = target;
  else {
    const width = byId<HTMLInputElement>('upscale-width').value.trim();
    const height = byId<HTMLInputElement>('upscale-height').value.trim();
    if (!width && !height) return showError(form, new ApiError(0, 'invalid_size', 'Give a width, a height or both (pixels).'));
    if (width) fields.width = width;
    if (height) fields.height = height;
    if (width && height) fields.fit = byId<HTMLSelectElement>('upscale-fit').value;
  }
  const quality = byId<HTMLSelectElement>('upscale-quality').value;
  if (quality) fields.quality = quality;
  // the default is left out, so a photo job is sent exactly as before the hint existed
  const content = byId<HTMLSelectElement>('upscale-content').value;
  if (content !== DEFAULT_CONTENT) fields.content = content;
  const file = chosen;
  if (!file && !url)
    return showError(form, new ApiError(0, 'invalid_request', 'Choose an image file (or drop one here), or paste an https image URL.'));
  const problem = file ? problemWith(file) : null;
  if (problem) return showError(form, new ApiError(0, 'invalid_request', problem));
  await busy(form.querySelector<HTMLButtonElement>('button[type="submit"]')!, async () => {
    const headers = { 'Idempotency-Key': newIdempotencyKey() };
    try {
      let answer;
      if (file) {
        const data = new FormData();
        data.append('image', file, file.name);
        for (const [k, v] of Object.entries(fields)) data.append(k, v);
        answer = await call<Job>('POST', '/upscale', { form: data, headers });
      } else {
        // JSON wants numbers where the form sends text
        const json: Record<string, string | number> = { image_url: url, ...fields };
        for (const side of ['width', 'height'] as const) if (fields[side]) json[side] = Number(fields[side]);
        answer = await call<Job>('POST', '/upscale', { json, headers });
      }
      showError(form, null);
      watchJob(answer.body, file ?? undefined);
      onSubmitted();
    } catch (err) {
      showError(form, err);
    }
  });
}

export function clearSubmitForm(): void {
  choose(null);
  byId<HTMLFormElement>('upscale-form').reset();
}
