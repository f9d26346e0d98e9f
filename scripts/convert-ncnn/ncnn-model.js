// Reads an ncnn network: the .param text (layer list) and the .bin weights (ncnn's own formats, as ncnn's
// src/net.cpp, paramdict.cpp and modelbin.cpp read them). Only what the Real-ESRGAN networks use is supported;
// any other layer type or parameter stops the conversion with its name, so a changed file cannot be converted wrongly.
'use strict';

const PARAM_MAGIC = 7767517;

/**
 * One layer line: `Type name nIn nOut in... out... k=v ...`. Values: integers, floats, or arrays written
 * `-23300-id=count,v1,v2,...` (ncnn's array ids are -23300 - id; the array belongs to parameter `id`).
 * @returns {{ type: string, name: string, inputs: string[], outputs: string[], params: Map<number, number | number[]> }}
 */
function parseLayerLine(line) {
  const tok = line.trim().split(/\s+/);
  const [type, name] = tok;
  const nIn = Number(tok[2]);
  const nOut = Number(tok[3]);
  const inputs = tok.slice(4, 4 + nIn);
  const outputs = tok.slice(4 + nIn, 4 + nIn + nOut);
  const params = new Map();
  for (const kv of tok.slice(4 + nIn + nOut)) {
    const eq = kv.indexOf('=');
    const key = Number(kv.slice(0, eq));
    const value = kv.slice(eq + 1);
    if (!Number.isInteger(key)) throw new Error(`${name}: bad parameter ${kv}`);
    if (key <= -23300) {
      const [count, ...values] = value.split(',').map(Number);
      if (values.length !== count || values.some(Number.isNaN)) throw new Error(`${name}: bad array parameter ${kv}`);
      params.set(-23300 - key, values);
    } else {
      const v = Number(value);
      if (Number.isNaN(v)) throw new Error(`${name}: bad parameter ${kv}`);
      params.set(key, v);
    }
  }
  return { type, name, inputs, outputs, params };
}

/** @param {string} text the .param file */
function parseParam(text) {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  if (Number(lines[0]) !== PARAM_MAGIC) throw new Error(`not an ncnn .param file (magic ${lines[0]})`);
  const [layerCount, blobCount] = lines[1].trim().split(/\s+/).map(Number);
  const layers = lines.slice(2).map(parseLayerLine);
  if (layers.length !== layerCount) throw new Error(`.param announces ${layerCount} layers, has ${layers.length}`);
  const blobs = new Set(layers.flatMap((l) => l.outputs));
  if (blobs.size !== blobCount) throw new Error(`.param announces ${blobCount} blobs, has ${blobs.size}`);
  return layers;
}

/** IEEE 754 half -> float (ncnn stores Real-ESRGAN's weights as float16). */
function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;
  if (exp === 0x1f) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

// modelbin.cpp: a "type 0" array starts with a 4-byte tag saying how its values are stored.
const TAG_FP16 = 0x01306b47;
const TAG_INT8 = 0x000d4b38;

/** Sequential reader of the .bin: weights are read in layer order, each layer taking what its type loads. */
class BinReader {
  constructor(buf) {
    this.buf = buf;
    this.pos = 0;
  }

  /** ModelBin::load(w, 0): tagged array (float16, or raw float32 after a zero tag). */
  tagged(count, what) {
    const tag = this.buf.readUInt32LE(this.pos);
    this.pos += 4;
    const out = new Float32Array(count);
    if (tag === TAG_FP16) {
      for (let i = 0; i < count; i++) out[i] = halfToFloat(this.buf.readUInt16LE(this.pos + 2 * i));
      this.pos += Math.ceil((2 * count) / 4) * 4; // padded to 4 bytes
    } else if (tag === 0) {
      for (let i = 0; i < count; i++) out[i] = this.buf.readFloatLE(this.pos + 4 * i);
      this.pos += 4 * count;
    } else if (tag === TAG_INT8) {
      throw new Error(`${what}: int8 weights are not supported`);
    } else {
      throw new Error(`${what}: unsupported weight storage (tag 0x${tag.toString(16)}; quantised tables are not supported)`);
    }
    return out;
  }

  /** ModelBin::load(w, 1): raw float32 (biases). */
  raw(count) {
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = this.buf.readFloatLE(this.pos + 4 * i);
    this.pos += 4 * count;
    return out;
  }

  end() {
    if (this.pos !== this.buf.length) throw new Error(`.bin has ${this.buf.length - this.pos} bytes left after the last layer`);
  }
}

module.exports = { parseParam, parseLayerLine, halfToFloat, BinReader };
