import type { OutputFormat } from '@upscaler/contracts';
import type { NetworkSpec } from './tile-runner';
import type { OutputSize } from '../image/resize-to-size';

/** Messages between the engine (main thread) and its inference worker. */
export interface JobMessage {
  type: 'job';
  id: number;
  input: Uint8Array;
  format: OutputFormat;
  network: NetworkSpec;
  maxInputPixels: number;
  /** Resize the upscaled image to this size before encoding (output by pixel size). */
  size?: OutputSize;
  /** Int32Array[1] on a SharedArrayBuffer: set to 1 by the main thread when the job's AbortSignal fires. */
  cancel: SharedArrayBuffer;
}

export type ReplyMessage =
  /** Tiles through the network so far, of `total` (sent after each tile; the job's answer still follows). */
  | { type: 'progress'; id: number; done: number; total: number }
  | { type: 'done'; id: number; output: Uint8Array; width: number; height: number; tiles: number; engineMs: number }
  | { type: 'failed'; id: number; code: 'corrupt_image' | 'image_dimensions_too_large' | 'engine_error'; message: string }
  | { type: 'cancelled'; id: number };

export interface WorkerInit {
  threads: number;
}
