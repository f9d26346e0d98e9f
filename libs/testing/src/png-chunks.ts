import { crc32 } from 'node:zlib';

/** Bytes before a PNG's first chunk. */
export const PNG_SIGNATURE_LENGTH = 8;

/** One chunk of a PNG as stored: `offset` of its length field in the file, `data` its payload. */
export interface PngChunk {
  type: string;
  offset: number;
  length: number;
  data: Buffer;
}

/** The chunks of a PNG file in order (lengths as stored; CRCs not checked): for tests that corrupt images at byte level. */
export function pngChunks(png: Buffer): PngChunk[] {
  const chunks: PngChunk[] = [];
  for (let p = PNG_SIGNATURE_LENGTH; p + 8 <= png.length;) {
    const length = png.readUInt32BE(p);
    chunks.push({ type: png.toString('latin1', p + 4, p + 8), offset: p, length, data: png.subarray(p + 8, p + 8 + length) });
    p += 12 + length;
  }
  return chunks;
}

/** A PNG chunk with its length and a correct CRC, so that only the decoder's later steps can notice what it holds. */
export function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
  return Buffer.concat([head, data, crc]);
}
