// Translates the Keras layer list of an UpscalerJS ESRGAN network into an ONNX-shaped graph (NCHW).
// Layer semantics, checked against the UpscalerJS sources (packages/shared/src/esrgan/esrgan.ts) and
// numerically against TF.js in libs/engine/test/conversion.int-spec.ts:
//   Conv2D (channels_last, stride 1, dilation 1, 'same'|'valid') -> Conv, kernel HWIO -> OIHW
//   Activation relu -> Relu; Concatenate(axis -1/3) -> Concat(axis 1); Add -> Add / Sum
//   UpSampling2D(size s, nearest) -> Resize(nearest, asymmetric, floor): each pixel repeated s x s
//   MultiplyBeta -> Mul by its beta (0.2): `tf.mul(x, beta)`
//   PixelShuffle{s}x -> DepthToSpace(blocksize s, DCR), which is TF's depthToSpace in NCHW terms
// The graph always takes and returns pixel values on the 0-255 scale: networks trained on [0, 1]
// (the RRDN "thick" ones) get a Mul by 1/255 at the input and by 255 at the output.
'use strict';

const FLOAT = 1;
const INT64 = 7;

function convertLayers(model, { inputScale = 1, outputScale = 1 } = {}) {
  const nodes = [];
  const initializers = [];
  // Receptive radius of each tensor, in input pixels, split into what was added at input resolution
  // and what was added after upsampling (in output pixels) so that it can be rounded up exactly once.
  const radius = new Map();
  const factor = new Map(); // resolution factor of each tensor relative to the input
  const tensorOf = new Map(); // keras layer name -> ONNX tensor name
  if (model.inputs.length !== 1 || model.outputs.length !== 1) throw new Error('only single-input single-output networks');
  const inputName = 'input';

  const addConst = (name, dims, values, dataType = FLOAT) => {
    initializers.push({ name, dims, dataType, values });
    return name;
  };
  const inputOf = (layer) => {
    const inbound = layer.inbound_nodes[0] || [];
    return inbound.map((ref) => {
      const t = tensorOf.get(ref[0]);
      if (!t) throw new Error(`${layer.name}: input ${ref[0]} not converted yet`);
      return t;
    });
  };
  const join = (names) => {
    // Radii add along a path: the deepest input decides; all inputs must share one resolution.
    const fs = new Set(names.map((n) => factor.get(n)));
    if (fs.size !== 1) throw new Error(`mixed resolutions at ${names.join(', ')}`);
    let best = { lr: 0, hr: 0 };
    for (const n of names) {
      const r = radius.get(n);
      if (r.lr + r.hr / Math.max(1, factor.get(n)) > best.lr + best.hr / Math.max(1, factor.get(n))) best = r;
    }
    return { f: [...fs][0], r: { ...best } };
  };
  const record = (name, f, r) => {
    factor.set(name, f);
    radius.set(name, r);
  };

  for (const layer of model.layers) {
    const c = layer.config;
    const out = layer.name;
    switch (layer.class_name) {
      case 'InputLayer': {
        const shape = c.batch_input_shape;
        if (shape.length !== 4 || shape[3] !== 3) throw new Error(`input must be NHWC with 3 channels, got ${shape}`);
        let t = inputName;
        record(t, 1, { lr: 0, hr: 0 });
        if (inputScale !== 1) {
          const s = addConst(`${out}/scale`, [], [inputScale]);
          nodes.push({ op: 'Mul', name: `${out}/to_range`, inputs: [t, s], outputs: [`${out}/scaled`] });
          t = `${out}/scaled`;
          record(t, 1, { lr: 0, hr: 0 });
        }
        tensorOf.set(out, t);
        break;
      }
      case 'Conv2D': {
        const [x] = inputOf(layer);
        const [kh, kw] = c.kernel_size;
        if (c.data_format !== 'channels_last') throw new Error(`${out}: data_format ${c.data_format}`);
        if (c.strides.some((s) => s !== 1) || c.dilation_rate.some((d) => d !== 1) || (c.groups ?? 1) !== 1) {
          throw new Error(`${out}: only stride 1, dilation 1, groups 1 are supported`);
        }
        if (kh % 2 !== 1 || kw % 2 !== 1) throw new Error(`${out}: even kernels are not supported`);
        if (c.padding !== 'same' && !(c.padding === 'valid' && kh === 1 && kw === 1)) {
          throw new Error(`${out}: padding ${c.padding} with a ${kh}x${kw} kernel changes the size`);
        }
        const kernel = model.weights.get(`${out}/kernel`);
        const [, , cin, cout] = kernel.shape;
        // Keras HWIO -> ONNX OIHW.
        const w = new Float32Array(kernel.data.length);
        for (let y = 0; y < kh; y++)
          for (let xk = 0; xk < kw; xk++)
            for (let i = 0; i < cin; i++)
              for (let o = 0; o < cout; o++) w[((o * cin + i) * kh + y) * kw + xk] = kernel.data[((y * kw + xk) * cin + i) * cout + o];
        const inputs = [x, addConst(`${out}/W`, [cout, cin, kh, kw], w)];
        if (c.use_bias) inputs.push(addConst(`${out}/B`, [cout], model.weights.get(`${out}/bias`).data));
        const ph = (kh - 1) / 2;
        const pw = (kw - 1) / 2;
        const convOut = c.activation === 'linear' ? out : `${out}/linear`;
        nodes.push({
          op: 'Conv',
          name: out,
          inputs,
          outputs: [convOut],
          attrs: { kernel_shape: [kh, kw], pads: [ph, pw, ph, pw], strides: [1, 1], dilations: [1, 1], group: 1 },
        });
        const { f, r } = join([x]);
        const grown = f === 1 ? { lr: r.lr + Math.max(ph, pw), hr: r.hr } : { lr: r.lr, hr: r.hr + Math.max(ph, pw) };
        record(convOut, f, grown);
        if (c.activation !== 'linear') {
          if (c.activation !== 'relu') throw new Error(`${out}: activation ${c.activation}`);
          nodes.push({ op: 'Relu', name: `${out}/relu`, inputs: [convOut], outputs: [out] });
          record(out, f, grown);
        }
        tensorOf.set(out, out);
        break;
      }
      case 'Activation': {
        if (c.activation !== 'relu') throw new Error(`${out}: activation ${c.activation}`);
        const [x] = inputOf(layer);
        nodes.push({ op: 'Relu', name: out, inputs: [x], outputs: [out] });
        const { f, r } = join([x]);
        record(out, f, r);
        tensorOf.set(out, out);
        break;
      }
      case 'Concatenate': {
        const xs = inputOf(layer);
        if (c.axis !== 3 && c.axis !== -1) throw new Error(`${out}: concat axis ${c.axis}`);
        nodes.push({ op: 'Concat', name: out, inputs: xs, outputs: [out], attrs: { axis: 1 } });
        const { f, r } = join(xs);
        record(out, f, r);
        tensorOf.set(out, out);
        break;
      }
      case 'Add': {
        const xs = inputOf(layer);
        nodes.push({ op: xs.length === 2 ? 'Add' : 'Sum', name: out, inputs: xs, outputs: [out] });
        const { f, r } = join(xs);
        record(out, f, r);
        tensorOf.set(out, out);
        break;
      }
      case 'MultiplyBeta': {
        const [x] = inputOf(layer);
        const beta = c.beta ?? 0.2;
        nodes.push({ op: 'Mul', name: out, inputs: [x, addConst(`${out}/beta`, [], [beta])], outputs: [out] });
        const { f, r } = join([x]);
        record(out, f, r);
        tensorOf.set(out, out);
        break;
      }
      case 'UpSampling2D': {
        const [x] = inputOf(layer);
        if (c.interpolation !== 'nearest' || c.data_format !== 'channels_last') throw new Error(`${out}: ${c.interpolation}`);
        const [sh, sw] = c.size;
        if (sh !== sw) throw new Error(`${out}: anisotropic upsampling`);
        const scales = addConst(`${out}/scales`, [4], [1, 1, sh, sw]);
        nodes.push({
          op: 'Resize',
          name: out,
          inputs: [x, '', scales],
          outputs: [out],
          attrs: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
        });
        const { f, r } = join([x]);
        if (f !== 1) throw new Error(`${out}: upsampling twice is not supported`);
        record(out, sh, r);
        tensorOf.set(out, out);
        break;
      }
      default: {
        const m = /^PixelShuffle(\d)x$/.exec(layer.class_name);
        if (!m) throw new Error(`${out}: unsupported layer ${layer.class_name}`);
        const [x] = inputOf(layer);
        const s = c.scale ?? Number(m[1]);
        nodes.push({ op: 'DepthToSpace', name: out, inputs: [x], outputs: [out], attrs: { blocksize: s, mode: 'DCR' } });
        const { f, r } = join([x]);
        if (f !== 1) throw new Error(`${out}: upsampling twice is not supported`);
        record(out, s, r);
        tensorOf.set(out, out);
      }
    }
  }
  let output = tensorOf.get(model.outputs[0]);
  const scale = factor.get(output);
  const r = radius.get(output);
  if (outputScale !== 1) {
    const s = addConst('output/scale', [], [outputScale]);
    nodes.push({ op: 'Mul', name: 'output/to_range', inputs: [output, s], outputs: ['output'] });
  } else {
    nodes.push({ op: 'Identity', name: 'output/identity', inputs: [output], outputs: ['output'] });
  }
  output = 'output';
  // A pixel of the output depends on input pixels at most this far away (in input pixels): the convolutions
  // before upsampling add their radius directly, those after add ceil(radius / scale).
  const receptiveRadius = r.lr + Math.ceil(r.hr / scale);
  return { nodes, initializers, input: inputName, output, scale, receptiveRadius, INT64 };
}

module.exports = { convertLayers };
