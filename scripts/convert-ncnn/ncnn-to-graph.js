// Translates an ncnn layer list (ncnn-model.js) into the ONNX-shaped graph scripts/convert/onnx-writer.js writes
// (NCHW; ncnn's blobs are CHW, one image). Layer semantics as ncnn's src/layer/*.cpp define them; numerically
// checked against ncnn itself in libs/engine/test/ncnn-conversion.int-spec.ts:
//   Input -> the graph input; Split -> nothing (its outputs are names for its input)
//   Convolution (stride 1, dilation 1, symmetric padding k//2, weights OIHW, optional bias; activation_type
//     0 none, 1 ReLU, 2 LeakyReLU with slope activation_params[0]) -> Conv (+ Relu / LeakyRelu)
//   ReLU (slope 0=) -> Relu / LeakyRelu; Concat (axis 0 = channels) -> Concat(axis 1)
//   Eltwise sum with coeffs -> Mul by each coefficient that is not 1, then Add
//   BinaryOp add/sub/mul/div of two blobs -> Add/Sub/Mul/Div
//   Interp nearest with an integer scale s -> Resize(nearest, asymmetric, floor): ncnn's nearest reads source
//     pixel floor(y / s), each pixel repeated s x s
//   PReLU (num_slope 0= slopes, float32 in the .bin) -> PRelu with a slope per channel ([C, 1, 1]) or one ([1])
//   PixelShuffle (upscale factor 0=, mode 1=: 0 PyTorch's channel order, 1 TensorFlow's) -> DepthToSpace (CRD, DCR)
// The graph takes and returns RGB on the 0-255 scale (the engine's convention): the network's own input scale
// (Real-ESRGAN: 0-1) is folded in with a Div at the input and a Mul at the output.
//
// Receptive radius, computed backwards from the output: a k x k conv adds (k-1)/2 pixels of its own tensor, a
// nearest upsampling or a pixel shuffle by s turns a radius r of its output into ceil(r / s) of its input (the worst
// case over the output pixel's phase); where a tensor feeds several layers the largest radius counts.
// Scale, computed forwards: each tensor's size over the input's; the branches an Add or Concat joins must agree
// (realesr-animevideov3 adds a pixel-shuffled body to the nearest-upsampled input, both x4).
//
// Crop before the tail (option `cropBeforeUpsampling`): RRDBNet's body reaches 347 pixels, its upsampling tail 2,
// so a tile needs a 349-pixel halo but only the core plus 2 pixels of the body's features are needed to
// upsample the core. The graph gets a second input `crop` (int64 [top, left, bottom, right], low-resolution
// pixels) that slices the features entering the first upsampling: the tail then runs on the core plus its own
// halo instead of the whole halo, 4 x 4 times fewer pixels than the body at x4. Exact as long as each crop leaves
// at least `tailRadius` pixels beyond the core, or reaches the image border (the engine's tile runner does so).
'use strict';

const FLOAT = 1;

const CONV_KEYS = new Set([0, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, 13, 14, 15, 16]);

function convertNcnn(layers, bin, { name, inputScale = 255, outputScale = 255, cropBeforeUpsampling = false }) {
  const nodes = [];
  const initializers = [];
  const alias = new Map(); // ncnn blob -> ONNX tensor
  const tensorOf = (blob) => {
    const t = alias.get(blob);
    if (!t) throw new Error(`blob ${blob} is used before it is made`);
    return t;
  };
  const addConst = (cname, dims, values) => {
    initializers.push({ name: cname, dims, dataType: FLOAT, values });
    return cname;
  };
  const scaled = (tensor, factor, tag) => {
    if (factor === 1) return tensor;
    const out = `${tensor}_x${tag}`;
    nodes.push({ op: 'Mul', name: out, inputs: [tensor, addConst(`${out}_k`, [], [factor])], outputs: [out] });
    return out;
  };
  const activation = (x, kind, slope, out) => {
    if (kind === 0) return x;
    if (kind === 1 && !slope) nodes.push({ op: 'Relu', name: out, inputs: [x], outputs: [out] });
    else if (kind === 1 || kind === 2) nodes.push({ op: 'LeakyRelu', name: out, inputs: [x], outputs: [out], attrs: { alpha: slope } });
    else throw new Error(`${out}: activation type ${kind} is not supported`);
    return out;
  };
  // A tensor named after its ncnn blob, unless that name is one of the graph's own inputs and output
  // (realesr-animevideov3's last BinaryOp writes the blob `output`).
  const own = (blob) => (['input', 'output', 'crop'].includes(blob) ? `${blob}_ncnn` : blob);
  let input;
  const upsamplings = [];
  const scaleOf = new Map(); // ONNX tensor -> its size over the input's
  const setScale = (tensor, value) => {
    scaleOf.set(tensor, value);
    return tensor;
  };
  const sameScale = (what, tensors) => {
    const scales = [...new Set(tensors.map((t) => scaleOf.get(t)))];
    if (scales.length !== 1) throw new Error(`${what}: joins tensors of different scales (${scales.join(', ')})`);
    return scales[0];
  };

  for (const layer of layers) {
    const p = layer.params;
    const get = (k, d) => (p.has(k) ? p.get(k) : d);
    const only = (keys) => {
      for (const k of p.keys()) if (!keys.has(k)) throw new Error(`${layer.name} (${layer.type}): parameter ${k} is not supported`);
    };
    const out = layer.outputs[0];
    switch (layer.type) {
      case 'Input': {
        if (input) throw new Error('only single-input networks');
        input = 'input';
        const x = `${out}_in`;
        nodes.push({ op: 'Div', name: x, inputs: [input, addConst(`${x}_k`, [], [inputScale])], outputs: [x] });
        alias.set(out, setScale(x, 1));
        break;
      }
      case 'Split':
        only(new Set());
        for (const o of layer.outputs) alias.set(o, tensorOf(layer.inputs[0]));
        break;
      case 'Convolution': {
        only(CONV_KEYS);
        const cout = get(0, 0);
        const kw = get(1, 0);
        const kh = get(11, kw);
        const pad = get(4, 0);
        const same = [get(2, 1), get(12, get(2, 1)), get(3, 1), get(13, get(3, 1))].every((v) => v === 1);
        const pads = [get(14, pad), pad, get(16, get(14, pad)), get(15, pad)]; // top, left, bottom, right
        if (!same || kw !== kh || kw % 2 !== 1 || pads.some((v) => v !== (kw - 1) / 2)) {
          throw new Error(`${layer.name}: only stride 1, dilation 1, square odd kernels with 'same' padding are supported`);
        }
        const size = get(6, 0);
        const cin = size / (cout * kw * kh);
        if (!Number.isInteger(cin)) throw new Error(`${layer.name}: weight_data_size ${size} does not fit ${cout} x k${kw}`);
        const W = addConst(`${layer.name}_W`, [cout, cin, kh, kw], bin.tagged(size, layer.name));
        const inputs = [tensorOf(layer.inputs[0]), W];
        if (get(5, 0)) inputs.push(addConst(`${layer.name}_B`, [cout], bin.raw(cout)));
        const conv = `${out}_conv`;
        nodes.push({
          op: 'Conv',
          name: conv,
          inputs,
          outputs: [conv],
          attrs: { kernel_shape: [kh, kw], pads: [pads[0], pads[1], pads[2], pads[3]] },
        });
        const act = get(10, []);
        alias.set(out, setScale(activation(conv, get(9, 0), act[0] ?? 0, `${out}_act`), scaleOf.get(inputs[0])));
        setScale(conv, scaleOf.get(inputs[0]));
        break;
      }
      case 'ReLU': {
        only(new Set([0]));
        const x = tensorOf(layer.inputs[0]);
        alias.set(out, setScale(activation(x, 1, get(0, 0), `${out}_relu`), scaleOf.get(x)));
        break;
      }
      case 'PReLU': {
        only(new Set([0]));
        const n = get(0, 0);
        if (!Number.isInteger(n) || n < 1) throw new Error(`${layer.name}: num_slope ${n}`);
        // prelu.cpp: slope_data = mb.load(num_slope, 1), raw float32; one slope is shared by every channel.
        const slope = addConst(`${layer.name}_slope`, n === 1 ? [1] : [n, 1, 1], bin.raw(n));
        const x = tensorOf(layer.inputs[0]);
        nodes.push({ op: 'PRelu', name: `${out}_prelu`, inputs: [x, slope], outputs: [`${out}_prelu`] });
        alias.set(out, setScale(`${out}_prelu`, scaleOf.get(x)));
        break;
      }
      case 'PixelShuffle': {
        only(new Set([0, 1]));
        const s = get(0, 1);
        const mode = get(1, 0);
        if (!Number.isInteger(s) || s < 2 || (mode !== 0 && mode !== 1)) {
          throw new Error(`${layer.name}: only an integer upscale factor >= 2 in mode 0 or 1 is supported`);
        }
        // pixelshuffle.cpp: mode 0 reads input channel (c * s + i) * s + j for output channel c at phase (i, j)
        // (PyTorch's PixelShuffle, ONNX CRD); mode 1 reads (i * s + j) * C + c (TensorFlow's depth_to_space, DCR).
        const x = tensorOf(layer.inputs[0]);
        const y = own(out);
        nodes.push({ op: 'DepthToSpace', name: y, inputs: [x], outputs: [y], attrs: { blocksize: s, mode: mode === 0 ? 'CRD' : 'DCR' } });
        alias.set(out, setScale(y, scaleOf.get(x) * s));
        break;
      }
      case 'Concat': {
        only(new Set([0]));
        if (get(0, 0) !== 0) throw new Error(`${layer.name}: only channel concatenation is supported`);
        const inputs = layer.inputs.map(tensorOf);
        const y = own(out);
        nodes.push({ op: 'Concat', name: y, inputs, outputs: [y], attrs: { axis: 1 } });
        alias.set(out, setScale(y, sameScale(layer.name, inputs)));
        break;
      }
      case 'Eltwise': {
        only(new Set([0, 1]));
        if (get(0, 1) !== 1) throw new Error(`${layer.name}: only Eltwise sum is supported`);
        const coeffs = get(1, []);
        if (coeffs.length !== 0 && coeffs.length !== layer.inputs.length) throw new Error(`${layer.name}: coefficient count`);
        const k = sameScale(layer.name, layer.inputs.map(tensorOf));
        const terms = layer.inputs.map((b, i) => setScale(scaled(tensorOf(b), coeffs[i] ?? 1, `${layer.name}_${i}`), k));
        let acc = terms[0];
        for (let i = 1; i < terms.length; i++) {
          const sum = i === terms.length - 1 ? own(out) : `${out}_sum${i}`;
          nodes.push({ op: 'Add', name: sum, inputs: [acc, terms[i]], outputs: [sum] });
          acc = setScale(sum, k);
        }
        alias.set(out, acc);
        break;
      }
      case 'BinaryOp': {
        only(new Set([0]));
        const op = ['Add', 'Sub', 'Mul', 'Div'][get(0, 0)];
        if (!op || layer.inputs.length !== 2) throw new Error(`${layer.name}: only add/sub/mul/div of two blobs are supported`);
        const inputs = layer.inputs.map(tensorOf);
        const y = own(out);
        nodes.push({ op, name: y, inputs, outputs: [y] });
        alias.set(out, setScale(y, sameScale(layer.name, inputs)));
        break;
      }
      case 'Interp': {
        only(new Set([0, 1, 2]));
        const s = get(1, 1);
        if (get(0, 0) !== 1 || get(2, 1) !== s || !Number.isInteger(s) || s < 2) {
          throw new Error(`${layer.name}: only nearest upsampling by an integer factor is supported`);
        }
        const scales = addConst(`${out}_scales`, [4], [1, 1, s, s]);
        let x = tensorOf(layer.inputs[0]);
        if (cropBeforeUpsampling && upsamplings.length === 0) x = cropInput(nodes, x);
        nodes.push({
          op: 'Resize',
          name: own(out),
          inputs: [x, '', scales],
          outputs: [own(out)],
          attrs: { mode: 'nearest', coordinate_transformation_mode: 'asymmetric', nearest_mode: 'floor' },
        });
        upsamplings.push({ input: tensorOf(layer.inputs[0]), factor: s });
        alias.set(out, setScale(own(out), scaleOf.get(tensorOf(layer.inputs[0])) * s));
        break;
      }
      default:
        throw new Error(`${layer.name}: ncnn layer type ${layer.type} is not supported`);
    }
  }
  bin.end();
  const last = layers[layers.length - 1].outputs[0];
  const output = 'output';
  const scale = scaleOf.get(tensorOf(last));
  nodes.push({ op: 'Mul', name: output, inputs: [tensorOf(last), addConst('output_k', [], [outputScale])], outputs: [output] });

  const radii = receptiveRadii(nodes, initializers, output);
  const receptiveRadius = radii.get(input);
  const graph = { nodes, initializers, input, output, scale, receptiveRadius, name };
  if (cropBeforeUpsampling) {
    if (upsamplings.length === 0) throw new Error('cropBeforeUpsampling: the network has no upsampling');
    graph.tailRadius = radii.get(upsamplings[0].input);
    graph.cropInput = 'crop';
  }
  return graph;
}

/** Slices the tensor by the graph input `crop` = [top, left, bottom, right] (int64), pixels removed per side. */
function cropInput(nodes, x) {
  const c = (n, v) => {
    nodes.push({ op: 'Constant', name: n, inputs: [], outputs: [n], attrs: { value_ints: v } });
    return n;
  };
  const starts = 'crop_starts';
  const tail = 'crop_tail';
  const hw = 'crop_hw';
  const ends = 'crop_ends';
  nodes.push({ op: 'Slice', name: starts, inputs: ['crop', c('crop_c0', [0]), c('crop_c2', [2])], outputs: [starts] });
  nodes.push({ op: 'Slice', name: tail, inputs: ['crop', c('crop_c2b', [2]), c('crop_c4', [4])], outputs: [tail] });
  nodes.push({ op: 'Shape', name: hw, inputs: [x], outputs: [hw], attrs: { start: 2 } });
  nodes.push({ op: 'Sub', name: ends, inputs: [hw, tail], outputs: [ends] });
  const out = `${x}_cropped`;
  nodes.push({ op: 'Slice', name: out, inputs: [x, starts, ends, c('crop_axes', [2, 3])], outputs: [out] });
  return out;
}

/** Receptive radius of every tensor the output depends on, in that tensor's own pixels (see the header). */
function receptiveRadii(nodes, initializers, output) {
  const inits = new Map(initializers.map((t) => [t.name, t]));
  const radius = new Map([[output, 0]]);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i];
    const r = Math.max(...n.outputs.map((o) => radius.get(o) ?? -1));
    if (r < 0) continue; // does not reach the output
    let rin = r;
    if (n.op === 'Conv') rin = r + (n.attrs.kernel_shape[0] - 1) / 2;
    else if (n.op === 'Resize') rin = Math.ceil(r / inits.get(n.inputs[2]).values[2]);
    else if (n.op === 'DepthToSpace') rin = Math.ceil(r / n.attrs.blocksize);
    else if (!['Relu', 'LeakyRelu', 'PRelu', 'Concat', 'Add', 'Sub', 'Mul', 'Div', 'Slice', 'Shape', 'Constant'].includes(n.op)) {
      throw new Error(`receptive radius: no rule for ${n.op}`);
    }
    const data = n.op === 'Slice' ? [n.inputs[0]] : n.op === 'Shape' ? [] : n.inputs;
    for (const t of data) if (t && !inits.has(t)) radius.set(t, Math.max(radius.get(t) ?? 0, rin));
  }
  return radius;
}

module.exports = { convertNcnn, receptiveRadii };
