"""Whole image sets in one compact file, so training runs where the dataset folders are not.

`pack_data.py` writes T91 + BSD200 + Set5 (every image, in `list_set` order) into one file; `train.py
--data FILE` reads its images instead of the folders. The sampler gets the same uint8 arrays in the
same order, so its batches are the same bit for bit (tests/test_pack.py).

File: an uncompressed .npz (`np.load` reads it) holding two uint8 arrays, `manifest` (UTF-8 JSON) and
`data` (every image's code, one after another). Code of one HxWx3 image, lossless and decodable with
numpy and the standard library alone:
  RGB -> planes (G, R-G, B-G) mod 256 -> in each plane the gradient residual
  x[i,j] - x[i,j-1] - x[i-1,j] + x[i-1,j-1] mod 256 (outside the image counts as 0) -> xz (lzma).
Decoding is two cumulative sums in uint8 arithmetic. This is ~0.74 of the PNG files' bytes with the
default xz preset (lossless WebP would give ~0.68 but needs Pillow's WebP codec to read).

Identity: `content_sha256` hashes each image's set, name, shape and pixel SHA-256, so it does not
depend on the codec or the xz preset; every decoded image is checked against its pixel SHA-256. The
bytes of the file are deterministic too (fixed zip timestamps, JSON in insertion order) for one xz library.
"""
import hashlib
import json
import lzma
import os
import zipfile
from pathlib import Path

import numpy as np

FORMAT = 'sr-image-pack/1'
CODEC = 'rgb->(g,r-g,b-g) mod 256; per plane x[i,j]-x[i,j-1]-x[i-1,j]+x[i-1,j-1] mod 256; xz'
DEFAULT_PRESET = 6


def encode_image(img: np.ndarray, preset: int = DEFAULT_PRESET) -> bytes:
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f'expected HxWx3 uint8, got {img.dtype} {img.shape}')
    x = img.astype(np.int16)
    g = x[..., 1]
    planes = np.stack([g, x[..., 0] - g, x[..., 2] - g])
    d = np.diff(planes, axis=2, prepend=0)
    d = np.diff(d, axis=1, prepend=0)
    return lzma.compress((d & 255).astype(np.uint8).tobytes(), format=lzma.FORMAT_XZ, preset=preset)


def decode_image(code: bytes, shape) -> np.ndarray:
    h, w, c = shape
    if c != 3:
        raise ValueError(f'bad shape {shape}')
    d = np.frombuffer(lzma.decompress(code), dtype=np.uint8).reshape(3, h, w)
    p = np.cumsum(np.cumsum(d, axis=1, dtype=np.uint8), axis=2, dtype=np.uint8)  # wraps mod 256
    out = np.empty((h, w, 3), dtype=np.uint8)
    out[..., 1] = p[0]
    out[..., 0] = p[1] + p[0]
    out[..., 2] = p[2] + p[0]
    return out


def pixel_sha256(img: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(img).tobytes()).hexdigest()


def content_sha256(sets: dict) -> str:
    """sets: {set name: [{'name', 'shape', 'sha256'}, ...]} -> one hash for the pack's content."""
    canon = {s: [[e['name'], list(e['shape']), e['sha256']] for e in entries] for s, entries in sets.items()}
    return hashlib.sha256(json.dumps(canon, sort_keys=True, separators=(',', ':')).encode()).hexdigest()


def file_sha256(path) -> str:
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for block in iter(lambda: f.read(1 << 20), b''):
            h.update(block)
    return h.hexdigest()


def write_pack(path, sets: dict, preset: int = DEFAULT_PRESET, log=None) -> dict:
    """sets: {set name: [(image name, HxWx3 uint8), ...]} in the order readers must see them.

    Writes `path` (atomically) and `path`.sha256 (sha256sum format); returns the manifest."""
    path = Path(path)
    blobs, offset, manifest_sets = [], 0, {}
    for set_name, items in sets.items():
        entries = []
        for name, img in items:
            code = encode_image(img, preset)
            if not np.array_equal(decode_image(code, img.shape), img):  # never ship a lossy code
                raise RuntimeError(f'{set_name}/{name}: decoded image differs')
            entries.append({'name': name, 'shape': list(img.shape), 'sha256': pixel_sha256(img),
                            'offset': offset, 'length': len(code)})
            blobs.append(code)
            offset += len(code)
        manifest_sets[set_name] = entries
        if log:
            log(f'{set_name}: {len(entries)} images, {sum(e["length"] for e in entries)} bytes')
    manifest = {'format': FORMAT, 'codec': CODEC, 'xz_preset': preset, 'sets': manifest_sets,
                'content_sha256': content_sha256(manifest_sets)}
    arrays = {'manifest': np.frombuffer(json.dumps(manifest, indent=1).encode(), dtype=np.uint8),
              'data': np.frombuffer(b''.join(blobs), dtype=np.uint8)}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + '.tmp')
    with zipfile.ZipFile(tmp, 'w', compression=zipfile.ZIP_STORED) as z:
        for key, arr in arrays.items():
            info = zipfile.ZipInfo(key + '.npy', date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            with z.open(info, 'w', force_zip64=True) as f:
                np.lib.format.write_array(f, arr, allow_pickle=False)
    os.replace(tmp, path)
    Path(str(path) + '.sha256').write_text(f'{file_sha256(path)}  {path.name}\n')
    return manifest


class Pack:
    """A packed file's images by set, decoded on first use (and checked against their pixel hashes)."""

    def __init__(self, path):
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f'{self.path}: no such pack (make it with sr pack-data)')
        with np.load(self.path, allow_pickle=False) as z:
            self.manifest = json.loads(z['manifest'].tobytes().decode())
            self._data = z['data']
        if self.manifest.get('format') != FORMAT:
            raise ValueError(f'{self.path}: not a {FORMAT} file (format {self.manifest.get("format")!r})')
        self.content_sha256 = self.manifest['content_sha256']
        if content_sha256(self.manifest['sets']) != self.content_sha256:
            raise ValueError(f'{self.path}: manifest does not match its content hash')
        self._cache = {}

    @property
    def sets(self) -> list:
        return list(self.manifest['sets'])

    def names(self, set_name: str) -> list:
        return [e['name'] for e in self._entries(set_name)]

    def _entries(self, set_name: str) -> list:
        if set_name not in self.manifest['sets']:
            raise KeyError(f'{self.path} holds {", ".join(self.sets)}, not {set_name} '
                           f'(pack it: python -m sr pack-data --sets {",".join(self.sets + [set_name])})')
        return self.manifest['sets'][set_name]

    def images(self, set_name: str) -> list:
        """Every image of the set, HxWx3 uint8, in the folder's sorted order (like list_set + load_rgb)."""
        if set_name not in self._cache:
            out = []
            for e in self._entries(set_name):
                code = self._data[e['offset']:e['offset'] + e['length']].tobytes()
                img = decode_image(code, e['shape'])
                if pixel_sha256(img) != e['sha256']:
                    raise ValueError(f'{self.path}: {set_name}/{e["name"]} does not match its SHA-256')
                img.flags.writeable = False  # shared by every reader of the cache
                out.append(img)
            self._cache[set_name] = out
        return list(self._cache[set_name])
