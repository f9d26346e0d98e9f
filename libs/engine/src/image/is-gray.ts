import type { Metadata } from 'sharp';

/** Grayscale stays grayscale (docs/design.md §4): single-band images, with or without alpha. */
export function isGray(meta: Pick<Metadata, 'space' | 'channels' | 'hasAlpha'>): boolean {
  return meta.space === 'b-w' || meta.space === 'grey16' || meta.channels - (meta.hasAlpha ? 1 : 0) === 1;
}
