// The super-resolution evaluation harness (bench/engine/quality.ts; reused by the training work).
export { contributions, imresizeBicubic, modcrop, type Plane } from './matlab-imresize';
export { lumaY, psnr, scoreY, shave, ssim } from './metrics';
