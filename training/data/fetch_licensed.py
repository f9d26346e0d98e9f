#!/usr/bin/env python3
"""Fetch the photos of licensed-photos.tsv (licensed for commercial use) and convert them to RGB PNGs.

  python3 training/data/fetch_licensed.py                 # -> ~/.cache/upscaler/datasets/licensed/{train,holdout}/
  python3 training/data/fetch_licensed.py --dest DIR      # or SR_LICENSED_DIR=DIR (what sr/images.py reads)
  python3 training/data/fetch_licensed.py --check         # only verify the PNGs already there (no download)

Every image comes from a Debian package: `apt-get download <package>=<version>` (the version the manifest
names); if the machine's apt sources lack that version (a package of another Debian release, e.g. trixie's
budgie-backgrounds on a bookworm machine), the .deb is fetched from the Debian archive's pool at
deb.debian.org; failing both, the current version with a warning, and the file hashes decide. The listed
files are read out of the .deb (`dpkg-deb --fsys-tarfile`, or Python's own ar/tar reader where dpkg-deb is
missing), each file's sha256 is checked against the manifest, and the image is written as
<dest>/<split>/<id>.png (RGB, stored orientation, width and height checked). Only `included` rows are
fetched. Idempotent: a PNG already there with the manifest's size is kept, a package whose PNGs are all
there is not downloaded, and PNGs of ids no longer in a split are removed. Needs Python 3.11, Pillow and
apt-get (run `apt-get update` once on a fresh machine). The .debs are deleted after use (--keep-debs keeps
them in <dest>/.debs). Licences, authors and the policy: docs/dataset-licences.md, NOTICE.
"""
import argparse
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / 'licensed-photos.tsv'
DEFAULT_DEST = Path.home() / '.cache' / 'upscaler' / 'datasets' / 'licensed'
COLUMNS = ['id', 'package', 'version', 'path', 'extract', 'licence', 'author', 'sha256', 'width', 'height',
           'split', 'status', 'note']
# licences whose images may be trained on for a commercial service (attribution ones: NOTICE)
ACCEPTED = {'CC0-1.0', 'public-domain', 'CC-BY-2.0', 'CC-BY-3.0', 'CC-BY-4.0', 'MIT', 'Expat', 'BSD-2-Clause',
            'BSD-3-Clause', 'Apache-2.0'}
ATTRIBUTION = {'CC-BY-2.0', 'CC-BY-3.0', 'CC-BY-4.0', 'MIT', 'Expat', 'BSD-2-Clause', 'BSD-3-Clause', 'Apache-2.0'}
# share-alike / copyleft (a trained network may be argued to be an adaptation) and no licence at all
REFUSED = re.compile(r'^(CC-BY-SA|CC-BY-NC|GPL|LGPL|AGPL|none$)')
SPLITS = ('train', 'holdout')
DEBIAN_POOL = 'http://deb.debian.org/debian/pool/main'


def read_manifest(path=MANIFEST) -> list:
    """Rows of the manifest as dicts ('#' lines are comments; the first other line is the header)."""
    lines = [ln for ln in Path(path).read_text(encoding='utf-8').splitlines() if ln and not ln.startswith('#')]
    header = lines[0].split('\t')
    if header != COLUMNS:
        raise ValueError(f'{path}: header {header} != {COLUMNS}')
    rows = []
    for n, ln in enumerate(lines[1:], 2):
        cells = ln.split('\t')
        if len(cells) != len(COLUMNS):
            raise ValueError(f'{path}: data line {n} has {len(cells)} cells, not {len(COLUMNS)}')
        row = dict(zip(COLUMNS, cells))
        row['width'], row['height'] = int(row['width']), int(row['height'])
        rows.append(row)
    return rows


def dest_root(arg=None) -> Path:
    return Path(arg or os.environ.get('SR_LICENSED_DIR') or DEFAULT_DEST).expanduser()


def png_size(path: Path):
    from PIL import Image
    try:
        with Image.open(path) as im:
            return im.size if im.format == 'PNG' else None
    except OSError:
        return None


def pool_url(package: str, version: str) -> str:
    """The .deb of package=version in the Debian archive's pool (an architecture-independent package built from
    the source package of the same name, as every package this manifest takes from the pool is)."""
    prefix = package[:4] if package.startswith('lib') else package[0]
    return f"{DEBIAN_POOL}/{prefix}/{package}/{package}_{version.split(':', 1)[-1]}_all.deb"


def download_pool(package: str, version: str, workdir: Path) -> bool:
    """Fetch package=version from the Debian pool into workdir; False if the pool does not have it."""
    url = pool_url(package, version)
    target = workdir / url.rsplit('/', 1)[1]
    try:
        with urllib.request.urlopen(url, timeout=60) as resp, open(target, 'wb') as out:
            shutil.copyfileobj(resp, out)
    except OSError as e:  # urllib's HTTPError / URLError are OSErrors
        target.unlink(missing_ok=True)
        print(f'  {url}: {e}', flush=True)
        return False
    return True


def apt_download(spec: str, workdir: Path) -> subprocess.CompletedProcess:
    if shutil.which('apt-get') is None:
        return subprocess.CompletedProcess(['apt-get'], 1, '', 'apt-get not found')
    return subprocess.run(['apt-get', 'download', spec], cwd=workdir, capture_output=True, text=True)


def download(package: str, version: str, workdir: Path) -> Path:
    """apt-get download package=version into workdir; else that version from the Debian pool (a package of
    another Debian release than the machine's); else the current version."""
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.glob('*.deb'):
        old.unlink()
    r = apt_download(f'{package}={version}', workdir)
    if r.returncode != 0:
        print(f'  {package}={version} not in the apt sources; fetching it from {DEBIAN_POOL}', flush=True)
        if not download_pool(package, version, workdir):
            why = r.stderr.strip().splitlines()[-1:] or r.returncode
            print(f'  warning: {package}={version} not downloadable ({why});'
                  f' trying the current version, the file hashes will decide', flush=True)
            r = apt_download(package, workdir)
            if r.returncode != 0:
                raise RuntimeError(f'apt-get download {package} failed (run apt-get update first?):\n{r.stderr}')
    debs = sorted(workdir.glob('*.deb'))
    if len(debs) != 1:
        raise RuntimeError(f'expected one .deb in {workdir}, found {[d.name for d in debs]}')
    return debs[0]


def _data_tar(deb: Path):
    """The data tarball of a .deb as a stream tarfile: dpkg-deb if present, else a minimal ar reader."""
    if shutil.which('dpkg-deb'):
        proc = subprocess.Popen(['dpkg-deb', '--fsys-tarfile', str(deb)], stdout=subprocess.PIPE)
        return tarfile.open(fileobj=proc.stdout, mode='r|'), proc
    f = open(deb, 'rb')
    if f.read(8) != b'!<arch>\n':
        raise RuntimeError(f'{deb}: not a Debian package')
    while True:
        hdr = f.read(60)
        if len(hdr) < 60:
            raise RuntimeError(f'{deb}: no data.tar member')
        name, size = hdr[:16].decode().strip().rstrip('/'), int(hdr[48:58])
        if name.startswith('data.tar'):
            if name.endswith('.zst'):
                raise RuntimeError(f'{deb}: zstd data needs dpkg-deb')
            return tarfile.open(fileobj=io.BytesIO(f.read(size)), mode='r:*'), None
        f.seek(size + (size & 1), 1)


def read_members(deb: Path, paths: set) -> dict:
    """{path inside the package: bytes} for the wanted regular files."""
    tar, proc = _data_tar(deb)
    out = {}
    with tar:
        for m in tar:
            name = m.name[2:] if m.name.startswith('./') else m.name
            if name in paths and m.isfile():
                out[name] = tar.extractfile(m).read()
    if proc is not None:
        proc.stdout.close()
        proc.wait()
    return out


def decode(data: bytes, extract: str):
    from PIL import Image
    if extract == 'image':
        return Image.open(io.BytesIO(data))
    if extract == 'edj-largest-jpeg':
        # Enlightenment stores each background as several JPEG renditions in an Eet (Edje) file: take the largest
        best = None
        for m in re.finditer(b'\xff\xd8\xff', data):
            try:
                im = Image.open(io.BytesIO(data[m.start():]))
            except OSError:
                continue
            if best is None or im.size[0] * im.size[1] > best.size[0] * best.size[1]:
                best = im
        if best is None:
            raise ValueError('no JPEG in the Edje file')
        return best
    raise ValueError(f'unknown extract method {extract!r}')


def write_png(im, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + '.tmp')
    im.convert('RGB').save(tmp, format='PNG', compress_level=1)
    os.replace(tmp, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dest', help=f'output folder (default: $SR_LICENSED_DIR or {DEFAULT_DEST})')
    ap.add_argument('--manifest', default=str(MANIFEST))
    ap.add_argument('--keep-debs', action='store_true', help='keep the downloaded packages in <dest>/.debs')
    ap.add_argument('--check', action='store_true', help='verify the PNGs already there; download nothing')
    a = ap.parse_args(argv)
    t0 = time.time()
    root = dest_root(a.dest)
    rows = [r for r in read_manifest(a.manifest) if r['status'] == 'included']
    for r in rows:
        if r['licence'] not in ACCEPTED or REFUSED.match(r['licence']):
            raise SystemExit(f"{r['id']}: licence {r['licence']} is not accepted for training")
    want = {s: {r['id'] for r in rows if r['split'] == s} for s in SPLITS}
    for s in SPLITS:  # PNGs of ids no longer in this split (a changed manifest)
        for f in sorted((root / s).glob('*.png')):
            if f.stem not in want[s]:
                print(f'removing {f} (not in the manifest\'s {s} split)')
                f.unlink()

    todo = [r for r in rows if png_size(root / r['split'] / f"{r['id']}.png") != (r['width'], r['height'])]
    print(f'{len(rows)} included photos in {a.manifest}; {len(rows) - len(todo)} already in {root}', flush=True)
    if a.check:
        for r in todo:
            print(f"missing or wrong size: {r['split']}/{r['id']}.png")
        return 1 if todo else 0
    errors = []
    by_pkg = {}
    for r in todo:
        by_pkg.setdefault((r['package'], r['version']), []).append(r)
    debs = root / '.debs'
    for (pkg, ver), prow in sorted(by_pkg.items()):
        print(f'{pkg} {ver}: {len(prow)} photos', flush=True)
        with tempfile.TemporaryDirectory(prefix='licensed-') as tmp:
            work = debs / pkg if a.keep_debs else Path(tmp)
            kept = sorted(work.glob('*.deb')) if a.keep_debs else []
            deb = kept[0] if len(kept) == 1 else download(pkg, ver, work)
            got = read_members(deb, {r['path'] for r in prow})
            for r in prow:
                data = got.get(r['path'])
                if data is None:
                    errors.append(f"{r['id']}: {r['path']} not in {deb.name}")
                    continue
                digest = hashlib.sha256(data).hexdigest()
                if digest != r['sha256']:
                    errors.append(f"{r['id']}: sha256 {digest} != manifest {r['sha256']} ({deb.name})")
                    continue
                im = decode(data, r['extract'])
                if im.size != (r['width'], r['height']):
                    errors.append(f"{r['id']}: {im.size[0]}x{im.size[1]} != manifest {r['width']}x{r['height']}")
                    continue
                write_png(im, root / r['split'] / f"{r['id']}.png")
                print(f"  {r['split']}/{r['id']}.png {r['width']}x{r['height']} {r['licence']}", flush=True)
    pixels = sum(r['width'] * r['height'] for r in rows)
    print(f"done in {time.time() - t0:.0f} s: {len(want['train'])} train + {len(want['holdout'])} holdout photos, "
          f'{pixels / 1e6:.1f} Mpixel, in {root}', flush=True)
    for e in errors:
        print('error:', e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
