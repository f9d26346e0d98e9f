export * from './engine.port';
export { createEngine, hostHasInt8DotProduct, type EngineOptions } from './create-engine';
export { EngineError, EngineCancelledError, isEngineCancelledError } from './engine-errors';
export { DEFAULT_MAX_OUTPUT_PIXELS, DEFAULT_MAX_INPUT_PIXELS, acceptedTargets, tierInputBoundMessage } from './limits';
export { sniffFormat } from './image/sniff-format';
export { planTiles, type Tile } from './tiling/tile-plan';
export { DEFAULT_REGISTRY } from './registry/default-registry';
export { readRegistry } from './registry/load-registry';
export type { JpegVariant, NetworkEntry, NetworkRegistry } from './registry/network-registry';
export { selectNetwork, tierMaxInputPixels, type InputTraits } from './registry/select-network';
export {
  effectivePrecision,
  hasInt8DotProduct,
  networkAtPrecision,
  PRECISION_SETTINGS,
  type Precision,
  type PrecisionSetting,
} from './registry/precision';
export { estimateJpegQuality } from './image/jpeg-quality';
export * from './quality';
export { probeImage } from './image/probe-image';
export { makeThumbnail, type Thumbnail } from './image/make-thumbnail';
export { MAX_OUTPUT_SIDE } from './image/encode-image';
export { DIHEDRAL_TRANSFORMS, ensembleTransforms, selfEnsemble } from './inference/dihedral';
