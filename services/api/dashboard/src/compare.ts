/**
 * The before/after comparison: the source, scaled to the result's size, under the result; the result
 * is clipped to the right of a divider. The divider is a slider (drag it, or focus it and use the
 * arrow keys, Page Up/Down, Home/End); the view zooms 1x-8x (wheel, or the buttons) and pans by drag
 * when zoomed. Positions are written through the CSSOM (element.style), which the CSP's style-src
 * 'self' allows (it forbids only inline style attributes and <style> elements in markup).
 */
import { byId } from './dom';

export const MIN_ZOOM = 1;
export const MAX_ZOOM = 8;

export class Comparison {
  private readonly stage = byId('compare-stage');
  private readonly before = byId<HTMLImageElement>('compare-before');
  private readonly after = byId<HTMLImageElement>('compare-after');
  private readonly afterLayer = byId('compare-after-layer');
  private readonly divider = byId('compare-divider');
  private readonly zoomLevel = byId('zoom-level');
  /** divider position, percent of the width from the left */
  private split = 50;
  private zoom = 1;
  /** pan, as fractions of the image's size (translate(%) of the image itself): in [1 - zoom, 0] */
  private panX = 0;
  private panY = 0;
  private drag: { mode: 'split' | 'pan'; x: number; y: number; panX: number; panY: number } | null = null;

  constructor() {
    this.divider.addEventListener('keydown', (e) => this.onKey(e));
    this.stage.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.stage.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.stage.addEventListener('pointerup', () => this.endDrag());
    this.stage.addEventListener('pointercancel', () => this.endDrag());
    this.stage.addEventListener('wheel', (e) => this.onWheel(e), { passive: false });
    byId('zoom-in').addEventListener('click', () => this.zoomTo(this.zoom * 2));
    byId('zoom-out').addEventListener('click', () => this.zoomTo(this.zoom / 2));
    byId('zoom-reset').addEventListener('click', () => this.zoomTo(1));
  }

  /** Shows two images (object URLs) at the result's pixel size: the stage keeps its aspect ratio. */
  async show(beforeUrl: string, afterUrl: string, width: number, height: number): Promise<void> {
    this.stage.style.aspectRatio = `${width} / ${height}`;
    // As wide as the panel allows, but never taller than 70% of the window.
    this.stage.style.width = `min(100%, ${((70 * width) / height).toFixed(3)}vh)`;
    this.before.src = beforeUrl;
    this.after.src = afterUrl;
    this.setSplit(50);
    this.zoomTo(1);
    await Promise.all([this.before.decode(), this.after.decode()]);
  }

  clear(): void {
    this.before.removeAttribute('src');
    this.after.removeAttribute('src');
  }

  setSplit(percent: number): void {
    this.split = Math.min(100, Math.max(0, Math.round(percent * 10) / 10));
    this.afterLayer.style.clipPath = `inset(0 0 0 ${this.split}%)`;
    this.divider.style.left = `${this.split}%`;
    this.divider.setAttribute('aria-valuenow', String(this.split));
    this.divider.setAttribute('aria-valuetext', `${this.split}% before, ${Math.round((100 - this.split) * 10) / 10}% after`);
  }

  /** Zooms about a point of the stage (fractions of its size; the centre by default). */
  zoomTo(level: number, atX = 0.5, atY = 0.5): void {
    const z = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, level));
    // Keep the image point under (atX, atY) where it is.
    this.panX = atX - ((atX - this.panX) * z) / this.zoom;
    this.panY = atY - ((atY - this.panY) * z) / this.zoom;
    this.zoom = z;
    this.applyTransform();
  }

  private applyTransform(): void {
    this.panX = Math.min(0, Math.max(1 - this.zoom, this.panX));
    this.panY = Math.min(0, Math.max(1 - this.zoom, this.panY));
    // With transform-origin 0 0, a point p of the image lands at translate + zoom * p (translate in % of the image).
    const transform = `translate(${+(this.panX * 100).toFixed(4)}%, ${+(this.panY * 100).toFixed(4)}%) scale(${+this.zoom.toFixed(4)})`;
    this.before.style.transform = transform;
    this.after.style.transform = transform;
    this.zoomLevel.textContent = `${Math.round(this.zoom * 10) / 10}x`;
    this.stage.classList.toggle('zoomed', this.zoom > 1);
    byId<HTMLButtonElement>('zoom-in').disabled = this.zoom >= MAX_ZOOM;
    byId<HTMLButtonElement>('zoom-out').disabled = this.zoom <= MIN_ZOOM;
    byId<HTMLButtonElement>('zoom-reset').disabled = this.zoom === 1;
  }

  private onKey(e: KeyboardEvent): void {
    const step = e.shiftKey ? 10 : 1;
    const moves: Record<string, number> = {
      ArrowLeft: this.split - step,
      ArrowDown: this.split - step,
      ArrowRight: this.split + step,
      ArrowUp: this.split + step,
      PageDown: this.split - 10,
      PageUp: this.split + 10,
      Home: 0,
      End: 100,
    };
    const next = moves[e.key];
    if (next === undefined) return;
    e.preventDefault();
    this.setSplit(next);
  }

  private fractionOf(e: PointerEvent | WheelEvent): { x: number; y: number } {
    const r = this.stage.getBoundingClientRect();
    return { x: (e.clientX - r.left) / r.width, y: (e.clientY - r.top) / r.height };
  }

  /** On the divider: move it. Elsewhere: pan when zoomed, else the divider jumps there and follows. */
  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const onDivider = e.target instanceof Node && this.divider.contains(e.target);
    const mode = onDivider || this.zoom === 1 ? 'split' : 'pan';
    this.drag = { mode, x: e.clientX, y: e.clientY, panX: this.panX, panY: this.panY };
    this.stage.setPointerCapture(e.pointerId);
    if (mode === 'split') {
      this.divider.focus({ preventScroll: true });
      if (!onDivider) this.setSplit(this.fractionOf(e).x * 100);
    }
    e.preventDefault();
  }

  private onPointerMove(e: PointerEvent): void {
    if (!this.drag) return;
    if (this.drag.mode === 'split') {
      this.setSplit(this.fractionOf(e).x * 100);
      return;
    }
    const r = this.stage.getBoundingClientRect();
    this.panX = this.drag.panX + (e.clientX - this.drag.x) / r.width;
    this.panY = this.drag.panY + (e.clientY - this.drag.y) / r.height;
    this.applyTransform();
  }

  private endDrag(): void {
    this.drag = null;
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const at = this.fractionOf(e);
    this.zoomTo(this.zoom * Math.exp(-e.deltaY * 0.002), at.x, at.y);
  }
}
