// Serialises the converter's graph as an ONNX ModelProto with protobufjs and our subset of onnx.proto.
'use strict';
const { join } = require('node:path');
const protobuf = require('protobufjs');

const OPSET = 17;
const IR_VERSION = 8;
const FLOAT = 1;
const ATTR = { FLOAT: 1, INT: 2, STRING: 3, FLOATS: 6, INTS: 7 };

let root;
function schema() {
  root ??= protobuf.loadSync(join(__dirname, 'onnx.proto'));
  return root;
}

function attribute(name, value) {
  if (typeof value === 'string') return { name, type: ATTR.STRING, s: Buffer.from(value, 'utf8') };
  if (Array.isArray(value)) {
    if (value.every(Number.isInteger)) return { name, type: ATTR.INTS, ints: value };
    return { name, type: ATTR.FLOATS, floats: value };
  }
  if (Number.isInteger(value)) return { name, type: ATTR.INT, i: value };
  return { name, type: ATTR.FLOAT, f: value };
}

function tensor({ name, dims, dataType, values }) {
  if (dataType !== FLOAT) throw new Error(`${name}: only float initializers are written`);
  const data = values instanceof Float32Array ? values : Float32Array.from(values);
  // raw_data is little-endian float32, exactly the bytes of a Float32Array on x86/arm.
  return { name, dims, dataType, rawData: Buffer.from(data.buffer, data.byteOffset, data.byteLength) };
}

function valueInfo(name, dims) {
  return {
    name,
    type: {
      tensorType: {
        elemType: FLOAT,
        shape: { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

/** @returns {Buffer} the encoded ModelProto */
function encodeModel(graph, { name, docString, metadata = {} }) {
  const ModelProto = schema().lookupType('onnx.ModelProto');
  const message = {
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'upscaler-convert-models',
    producerVersion: '1',
    docString,
    graph: {
      name,
      node: graph.nodes.map((n) => ({
        name: n.name,
        opType: n.op,
        input: n.inputs,
        output: n.outputs,
        attribute: Object.entries(n.attrs ?? {}).map(([k, v]) => attribute(k, v)),
      })),
      initializer: graph.initializers.map(tensor),
      input: [valueInfo(graph.input, [1, 3, 'height', 'width'])],
      output: [valueInfo(graph.output, [1, 3, 'out_height', 'out_width'])],
    },
    metadataProps: Object.entries(metadata).map(([key, value]) => ({ key, value: String(value) })),
  };
  const err = ModelProto.verify(message);
  if (err) throw new Error(`invalid ModelProto: ${err}`);
  return Buffer.from(ModelProto.encode(ModelProto.fromObject(message)).finish());
}

module.exports = { encodeModel, OPSET, IR_VERSION };
