// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseParam, parseLayerLine, halfToFloat, BinReader } = require('./ncnn-model');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { convertNcnn } = require('./ncnn-to-graph');

/** A .bin holding one float16 weight array (tagged) and a float32 bias per convolution, as ncnn writes it. */
function bin(convs: { weights: number; bias: number }[]): Buffer {
  const parts: Buffer[] = [];
  for (const { weights, bias } of convs) {
    const w = Buffer.alloc(4 + Math.ceil((2 * weights) / 4) * 4);
    w.writeUInt32LE(0x01306b47, 0);
    for (let i = 0; i < weights; i++) w.writeUInt16LE(0x3c00, 4 + 2 * i); // 1.0
    const b = Buffer.alloc(4 * bias);
    for (let i = 0; i < bias; i++) b.writeFloatLE(0.5, 4 * i);
    parts.push(w, b);
  }
  return Buffer.concat(parts);
}

const TINY = `7767517
6 7
Input            in   0 1 data
Convolution      c0   1 1 data a 0=2 1=3 4=1 5=1 6=54 9=2 -23310=1,2.000000e-01
Split            sp   1 2 a a0 a1
Convolution      c1   1 1 a0 b 0=2 1=5 4=2 5=1 6=100
Eltwise          add  2 1 b a1 c 0=1 -23301=2,2.000000e-01,1.000000e+00
Interp           up   1 1 c output 0=1 1=2.000000e+00 2=2.000000e+00
`;

describe('ncnn reader (scripts/convert-ncnn)', () => {
  it('parses a layer line: blobs, integer and float parameters, arrays under their own id', () => {
    const l = parseLayerLine('Convolution  Conv_1  1 1 x y 0=32 1=3 4=1 5=1 6=18432 9=2 -23310=1,2.000000e-01');
    expect(l).toMatchObject({ type: 'Convolution', name: 'Conv_1', inputs: ['x'], outputs: ['y'] });
    expect([...l.params.entries()]).toEqual([
      [0, 32],
      [1, 3],
      [4, 1],
      [5, 1],
      [6, 18432],
      [9, 2],
      [10, [0.2]],
    ]);
  });

  it('refuses a file without the magic number or with a wrong layer count', () => {
    expect(() => parseParam('123\n1 1\nInput in 0 1 data\n')).toThrow('not an ncnn .param file');
    expect(() => parseParam('7767517\n2 1\nInput in 0 1 data\n')).toThrow('announces 2 layers');
  });

  it('reads float16 exactly: normal, subnormal, signed, infinite values', () => {
    expect([0x3c00, 0xc000, 0x3555, 0x0001, 0x7bff, 0xfc00].map(halfToFloat)).toEqual([1, -2, 0.333251953125, 2 ** -24, 65504, -Infinity]);
  });

  it('reads tagged float16 arrays padded to 4 bytes, then raw float32 biases, and checks nothing is left over', () => {
    const r = new BinReader(bin([{ weights: 3, bias: 1 }]));
    expect(Array.from(r.tagged(3, 'w'))).toEqual([1, 1, 1]);
    expect(Array.from(r.raw(1))).toEqual([0.5]);
    expect(() => r.end()).not.toThrow();
    const short = new BinReader(bin([{ weights: 3, bias: 2 }]));
    short.tagged(3, 'w');
    expect(() => short.end()).toThrow('8 bytes left');
  });
});

/** realesr-animevideov3's shape, in small: conv + PReLU, a pixel shuffle, and the nearest-upsampled input added. */
const COMPACT = `7767517
7 8
Input            in   0 1 data
Split            sp   1 2 data d0 d1
Convolution      c0   1 1 d1 a 0=12 1=3 4=1 5=1 6=324
PReLU            p0   1 1 a b 0=12
PixelShuffle     ps   1 1 b c 0=2
Interp           up   1 1 d0 e 0=1 1=2.000000e+00 2=2.000000e+00
BinaryOp         add  2 1 c e output
`;

/** COMPACT's .bin: the conv's tagged float16 weights and float32 bias, then the 12 PReLU slopes as raw float32. */
function compactBin(slopes: number[]): Buffer {
  const s = Buffer.alloc(4 * slopes.length);
  slopes.forEach((v, i) => s.writeFloatLE(v, 4 * i));
  return Buffer.concat([bin([{ weights: 324, bias: 12 }]), s]);
}

describe('ncnn -> ONNX graph', () => {
  const convert = (opts = {}) =>
    convertNcnn(
      parseParam(TINY),
      new BinReader(
        bin([
          { weights: 54, bias: 2 },
          { weights: 100, bias: 2 },
        ]),
      ),
      { name: 't', ...opts },
    );

  it('maps the layers: Div at the input, Conv + LeakyRelu, Eltwise coefficients as Mul, Resize, Mul at the output', () => {
    const g = convert();
    expect(g.nodes.map((n: { op: string }) => n.op)).toEqual(['Div', 'Conv', 'LeakyRelu', 'Conv', 'Mul', 'Add', 'Resize', 'Mul']);
    expect(g.nodes[2].attrs).toEqual({ alpha: 0.2 });
    expect(g.initializers.find((t: { name: string }) => t.name === 'c0_W').dims).toEqual([2, 3, 3, 3]);
    expect(g.scale).toBe(2);
  });

  it('computes the receptive radius through convolutions, branches and upsampling: 1 + 2 = 3 input pixels', () => {
    expect(convert().receptiveRadius).toBe(3);
  });

  it('with a crop before the upsampling: a `crop` input slicing the features, and the tail radius (0 here)', () => {
    const g = convert({ cropBeforeUpsampling: true });
    expect(g.cropInput).toBe('crop');
    expect(g.tailRadius).toBe(0);
    expect(g.receptiveRadius).toBe(3);
    const resize = g.nodes.find((n: { op: string }) => n.op === 'Resize');
    expect(resize.inputs[0]).toBe('c_cropped');
  });

  it('maps PReLU to PRelu with one slope per channel, read as raw float32 after the conv', () => {
    const slopes = Array.from({ length: 12 }, (_, i) => i / 8);
    const g = convertNcnn(parseParam(COMPACT), new BinReader(compactBin(slopes)), { name: 'c' });
    const prelu = g.nodes.find((n: { op: string }) => n.op === 'PRelu');
    const slope = g.initializers.find((t: { name: string }) => t.name === prelu.inputs[1]);
    expect(slope.dims).toEqual([12, 1, 1]);
    expect(Array.from(slope.values)).toEqual(slopes);
    const one = COMPACT.replace('PReLU            p0   1 1 a b 0=12', 'PReLU            p0   1 1 a b 0=1');
    const shared = convertNcnn(parseParam(one), new BinReader(compactBin([0.25])), { name: 'c' });
    expect(shared.initializers.find((t: { name: string }) => t.name === 'p0_slope').dims).toEqual([1]);
  });

  it("maps PixelShuffle to DepthToSpace: mode 0 (PyTorch's channel order) is CRD, mode 1 is DCR", () => {
    const g = convertNcnn(parseParam(COMPACT), new BinReader(compactBin(new Array(12).fill(0))), { name: 'c' });
    expect(g.nodes.find((n: { op: string }) => n.op === 'DepthToSpace').attrs).toEqual({ blocksize: 2, mode: 'CRD' });
    const dcr = convertNcnn(parseParam(COMPACT.replace('0=2\n', '0=2 1=1\n')), new BinReader(compactBin(new Array(12).fill(0))), {
      name: 'c',
    });
    expect(dcr.nodes.find((n: { op: string }) => n.op === 'DepthToSpace').attrs).toEqual({ blocksize: 2, mode: 'DCR' });
  });

  it('scale and radius of a two-branch net: the shuffled body and the upsampled input are both x2 (not x4); radius 1', () => {
    const g = convertNcnn(parseParam(COMPACT), new BinReader(compactBin(new Array(12).fill(0))), { name: 'c' });
    expect(g.scale).toBe(2);
    expect(g.receptiveRadius).toBe(1);
    // The ncnn blob `output` becomes its own tensor; the graph's output is the Mul by 255 after it.
    expect(g.nodes.map((n: { op: string }) => n.op)).toEqual(['Div', 'Conv', 'PRelu', 'DepthToSpace', 'Resize', 'Add', 'Mul']);
    expect(g.nodes[5].outputs).toEqual(['output_ncnn']);
    expect(g.nodes[6]).toMatchObject({ inputs: ['output_ncnn', 'output_k'], outputs: ['output'] });
  });

  it('refuses to add branches of different scales, and a pixel shuffle it cannot map', () => {
    const skew = COMPACT.replace('0=1 1=2.000000e+00 2=2.000000e+00', '0=1 1=3.000000e+00 2=3.000000e+00');
    const b = () => new BinReader(compactBin(new Array(12).fill(0)));
    expect(() => convertNcnn(parseParam(skew), b(), { name: 'c' })).toThrow('add: joins tensors of different scales (2, 3)');
    expect(() => convertNcnn(parseParam(COMPACT.replace('0=2\n', '0=2 1=2\n')), b(), { name: 'c' })).toThrow('ps: only an integer');
  });

  it('refuses a layer type or a parameter it does not know, naming it', () => {
    const param = TINY.replace('Interp           up   1 1 c output 0=1', 'Interp           up   1 1 c output 0=2');
    const b = () =>
      new BinReader(
        bin([
          { weights: 54, bias: 2 },
          { weights: 100, bias: 2 },
        ]),
      );
    expect(() => convertNcnn(parseParam(param), b(), { name: 't' })).toThrow('up: only nearest upsampling');
    const strided = TINY.replace('6=100', '6=100 3=2');
    expect(() => convertNcnn(parseParam(strided), b(), { name: 't' })).toThrow('c1: only stride 1');
    const pooled = TINY.replace('Split            sp', 'Pooling          sp');
    expect(() => convertNcnn(parseParam(pooled), b(), { name: 't' })).toThrow('sp: ncnn layer type Pooling is not supported');
  });
});
