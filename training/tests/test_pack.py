"""Packed images (pack_data.py, sr/pack.py) and train.py's --data / --device / --out / --workers.

The packed sampler must give the folder sampler's batches bit for bit, the held-out and Set5 images
must be the folders', and a run trained from the pack must end with the same weights as one trained
from the folders. The GPU path itself cannot run here (CUDA stubs: torch.cuda.is_available() is
False); what can be checked is that --device cuda refuses clearly."""
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from sr.commands import pack_data as pack_data
from sr.data import Batches, PatchSampler, set_images
from sr.images import list_set
from sr.pack import Pack, decode_image, encode_image, write_pack
from sr.commands.train import HOLDOUT, eval_pairs

TRAINING = Path(__file__).resolve().parents[1]
TRAIN = ['-m', 'sr', 'train']
SETS = pack_data.DEFAULT_SETS.split(',')


@pytest.fixture(scope='module')
def full_pack(tmp_path_factory):
    """Every image train.py reads (T91, BSD200 with its held-out images, Set5), packed at the fastest
    xz preset: the same content as packs/sr_data.npz, ~15% larger, ~20 s to write."""
    path = tmp_path_factory.mktemp('pack') / 'sr_data.npz'
    write_pack(path, pack_data.read_sets(SETS), preset=0)
    return path


def test_codec_is_lossless():
    rng = np.random.default_rng(0)
    shapes = [(1, 1, 3), (1, 7, 3), (9, 1, 3), (33, 47, 3), (64, 64, 3)]
    for shape in shapes:
        for img in (rng.integers(0, 256, shape, dtype=np.uint8),
                    np.full(shape, 255, np.uint8),
                    (np.indices(shape[:2]).sum(0) % 2 * 255).astype(np.uint8)[..., None].repeat(3, 2)):
            assert np.array_equal(decode_image(encode_image(img, preset=0), shape), img), shape
    real = set_images('Set5')[0]
    assert np.array_equal(decode_image(encode_image(real), real.shape), real)
    with pytest.raises(ValueError):
        encode_image(np.zeros((4, 4), np.uint8))


def test_pack_is_deterministic_and_checked(tmp_path):
    sets = {'T91': [(f.name, im) for f, im in zip(list_set('T91')[:4], set_images('T91')[:4])]}
    a = write_pack(tmp_path / 'a.npz', sets, preset=0)
    write_pack(tmp_path / 'b.npz', sets, preset=0)
    c = write_pack(tmp_path / 'c.npz', sets, preset=3)
    assert (tmp_path / 'a.npz').read_bytes() == (tmp_path / 'b.npz').read_bytes()
    assert (tmp_path / 'a.npz.sha256').read_text().split()[1] == 'a.npz'
    assert a['content_sha256'] == c['content_sha256']  # content, not codec settings
    with np.load(tmp_path / 'a.npz') as z:  # a plain .npz
        assert set(z.files) == {'manifest', 'data'} and z['data'].dtype == np.uint8
    pack = Pack(tmp_path / 'a.npz')
    assert pack.sets == ['T91'] and pack.names('T91') == [n for n, _ in sets['T91']]
    assert all(np.array_equal(x, y) for x, (_, y) in zip(pack.images('T91'), sets['T91']))
    with pytest.raises(KeyError, match='sr pack-data --sets T91,Set5'):
        pack.images('Set5')
    # a changed byte of an image's code is caught (xz's own check or the pixel hash)
    raw = bytearray((tmp_path / 'a.npz').read_bytes())
    e = a['sets']['T91'][1]
    data_at = raw.index(b'\xfd7zXZ')  # the first code's xz magic: start of the data array
    raw[data_at + e['offset'] + e['length'] // 2] ^= 0xFF
    (tmp_path / 'bad.npz').write_bytes(bytes(raw))
    with pytest.raises(Exception):
        Pack(tmp_path / 'bad.npz').images('T91')


def test_full_pack_fits_the_carry_limit(full_pack):
    limit = pack_data.CARRY_LIMIT
    assert full_pack.stat().st_size < 0.9 * limit  # the fastest preset; the default one is ~12% smaller
    real = pack_data.DEFAULT_PATH
    if real.exists():  # the file made here for the GPU machine: same content, under 3/4 of the limit
        assert real.stat().st_size < 0.75 * limit
        assert Pack(real).content_sha256 == Pack(full_pack).content_sha256


def test_pack_holds_the_folders_images_in_order(full_pack):
    pack = Pack(full_pack)
    assert pack.sets == SETS
    for s in SETS:
        files = list_set(s)
        assert pack.names(s) == [f.name for f in files]
        for x, y in zip(pack.images(s), set_images(s)):
            assert np.array_equal(x, y)
    # held-out and quick-check pairs as train.py makes them
    for deg in ('bicubic', 'photo'):
        a = eval_pairs(list_set('BSD200')[-HOLDOUT:], 3, deg, 1)
        b = eval_pairs(pack.images('BSD200')[-HOLDOUT:], 3, deg, 1)
        assert all(np.array_equal(p, q) for (p1, p2), (q1, q2) in zip(a, b) for p, q in ((p1, q1), (p2, q2)))


@pytest.mark.parametrize('scale,patch,degradation', [(2, 48, 'bicubic'), (4, 24, 'photo')])
def test_packed_sampler_gives_the_folder_batches(full_pack, scale, patch, degradation):
    folders = PatchSampler(['T91', 'BSD200'], scale, patch, degradation, exclude_last=HOLDOUT)
    packed = PatchSampler(['T91', 'BSD200'], scale, patch, degradation, exclude_last=HOLDOUT, pack=Pack(full_pack))
    assert len(packed.images) == len(folders.images) > 250
    assert np.array_equal(packed.p, folders.p)
    for it in range(4):
        a, b = folders.batch(1, it, 16), packed.batch(1, it, 16)
        assert a[0].dtype == b[0].dtype == np.float32
        assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]), it
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()


def test_worker_processes_make_the_same_batches(full_pack):
    sampler = PatchSampler(['T91'], 2, 16, exclude_last=HOLDOUT)
    args = (['T91'], 2, 16, 'bicubic', HOLDOUT, str(full_pack))
    inline = Batches(sampler, args, 3, 4, start=5)
    pooled = Batches(sampler, args, 3, 4, start=5, workers=2, ahead=3)
    try:
        for it in range(5, 12):
            a, b = inline.get(it), pooled.get(it)
            for x, y in zip(a, b):
                assert x.dtype == y.dtype == np.uint8 and x.strides == y.strides
                assert np.array_equal(x, y)
            assert np.array_equal(a[0].astype(np.float32), sampler.batch(3, it, 4)[0])
        with pytest.raises(ValueError):
            inline.get(99)
    finally:
        pooled.close()


def train(runs, *args, check=True):
    return subprocess.run([sys.executable, *TRAIN, '--out', str(runs), *args], capture_output=True, text=True,
                          check=check, cwd=TRAINING, env=dict(os.environ, SR_RUNS_DIR='/nonexistent'))


ARGS = ['--scale', '2', '--arch', 'plain_c16_b2', '--batch', '2', '--patch', '16', '--iters', '5', '--threads', '1',
        '--seed', '5']


def test_train_from_pack_equals_train_from_folders(tmp_path, full_pack):
    """train.py --data PACK --device cpu trains on the folders' batches: bit-identical weights. A run
    stopped and resumed with a checkpoint from before --data/--device existed still resumes."""
    train(tmp_path, '--name', 'folders', *ARGS)
    r = train(tmp_path, '--name', 'packed', *ARGS, '--data', str(full_pack), '--device', 'cpu')
    assert 'training images (pack ' in r.stdout
    a = torch.load(tmp_path / 'folders' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'packed' / 'last.pt', weights_only=False)
    assert a['iteration'] == b['iteration'] == 5
    for k in a['model']:
        assert torch.equal(a['model'][k], b['model'][k]), k
    ma = json.loads((tmp_path / 'folders' / 'metrics.jsonl').read_text().splitlines()[-1])
    mb = json.loads((tmp_path / 'packed' / 'metrics.jsonl').read_text().splitlines()[-1])
    assert ma['val_psnr'] == mb['val_psnr'] and ma['set5_psnr'] == mb['set5_psnr']
    assert ma['data'] == 'folders' and mb['data'] == f'pack {Pack(full_pack).content_sha256[:16]}'
    assert mb['device'] == 'cpu' and b['meta']['config']['data'] == str(full_pack)
    assert (tmp_path / 'packed' / 'best.pt').exists() and not Path('/nonexistent').exists()

    # an old-format checkpoint (no data/device/workers in its config) resumes, here from the pack
    # with a batch-making worker process, and ends where the uninterrupted run ended
    train(tmp_path, '--name', 'split', *ARGS, '--stop-at', '2')
    ck = torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)
    for k in ('data', 'device', 'workers'):
        del ck['meta']['config'][k]
    torch.save(ck, tmp_path / 'split' / 'last.pt')
    train(tmp_path, '--name', 'split', '--resume', '--data', str(full_pack), '--workers', '1')
    s = torch.load(tmp_path / 'split' / 'last.pt', weights_only=False)
    assert s['iteration'] == 5 and s['meta']['config']['workers'] == 1
    for k in a['model']:  # resume equals an uninterrupted run to float rounding (test_resume.py)
        assert torch.allclose(a['model'][k], s['model'][k], rtol=0, atol=1e-6), k


def test_device_cuda_without_cuda_fails_clearly(tmp_path):
    assert not torch.cuda.is_available()
    r = train(tmp_path, '--name', 'gpu', *ARGS, '--device', 'cuda', check=False)
    assert r.returncode != 0
    assert '--device cuda' in r.stderr and 'torch.cuda.is_available() is False' in r.stderr
    assert 'gpu_train.sh' in r.stderr and 'Traceback' not in r.stderr
    assert not (tmp_path / 'gpu').exists()


def test_checkpoint_tensors_go_to_cpu():
    from sr.commands.train import to_cpu
    state = {'a': torch.ones(2), 'b': [torch.zeros(1), 3], 'c': {'d': (torch.ones(1), 'x')}}
    out = to_cpu(state)
    assert out['b'][1] == 3 and out['c']['d'][1] == 'x' and isinstance(out['c']['d'], tuple)
    assert torch.equal(out['a'], state['a'])


def test_gpu_train_script(tmp_path, full_pack):
    """gpu_train.sh's plumbing with a stand-in for the GPU machine's python3 (its CUDA probe passes and
    train.py gets --device cpu): the run lands in $OUT/<name>/, a copy brought back resumes in a fresh
    $OUT, and missing pieces fail with a message."""
    shim = tmp_path / 'python3'
    shim.write_text('#!/usr/bin/env bash\n'
                    'if [ "$1" = -c ]; then echo "stand-in python3"; exit 0; fi\n'
                    'a=(); for x in "$@"; do [ "$x" = cuda ] && x=cpu; a+=("$x"); done\n'
                    f'exec {sys.executable} "${{a[@]}}"\n')
    shim.chmod(0o755)
    env = dict(os.environ, PYTHON=str(shim), SR_PACK=str(full_pack), WORKERS='1', SR_RUNS_DIR=str(tmp_path / 'runs'))

    def call(out, *args, **change):
        e = dict(env, OUT=str(out), **change)
        return subprocess.run(['bash', str(TRAINING / 'scripts' / 'gpu_train.sh'), *args], env={k: v for k, v in e.items() if v},
                              capture_output=True, text=True)

    r = call(tmp_path / 'out1', '--name', 'g', *ARGS, '--stop-at', '2')
    assert r.returncode == 0, r.stdout + r.stderr
    run = tmp_path / 'out1' / 'g'
    assert sorted(p.name for p in run.iterdir()) == ['best.pt', 'last.pt', 'metrics.jsonl', 'train.log']
    ck = torch.load(run / 'last.pt', weights_only=False)
    cfg = ck['meta']['config']
    assert ck['iteration'] == 2 and cfg['data'] == str(full_pack) and cfg['workers'] == 1 and cfg['max_minutes'] == 8
    assert 'training images (pack ' in (run / 'train.log').read_text()

    shutil.copytree(run, tmp_path / 'runs' / 'g')  # the files brought back, in training/runs/<name>
    r = call(tmp_path / 'out2', '--name', 'g', '--resume')
    assert r.returncode == 0, r.stdout + r.stderr
    assert torch.load(tmp_path / 'out2' / 'g' / 'last.pt', weights_only=False)['iteration'] == 5
    assert len((tmp_path / 'out2' / 'g' / 'metrics.jsonl').read_text().splitlines()) == 2

    r = call(tmp_path / 'o', *ARGS)
    assert r.returncode == 2 and '--name NAME is required' in r.stderr
    r = call(tmp_path / 'o', '--name', 'x', *ARGS, SR_PACK=str(tmp_path / 'none.npz'))
    assert r.returncode == 2 and 'sr pack-data' in r.stderr
    r = call('', '--name', 'x', *ARGS)
    assert r.returncode != 0 and 'OUT is not set' in r.stderr
    r = call(tmp_path / 'o', '--name', 'x', *ARGS, PYTHON=sys.executable)  # the real probe: no CUDA here
    assert r.returncode == 3 and 'no CUDA device' in r.stdout
    assert not (tmp_path / 'o').exists()


def test_qat_from_pack_with_workers_equals_qat_from_folders(tmp_path, full_pack, qat_parent):
    """train_qat.py --data PACK --workers 1 --out DIR (its lent-GPU options, on the CPU here) fine-tunes on the
    folders' batches: the same weights as a run from the folders in its own process."""
    parent = qat_parent
    args = ['--from', str(parent), '--iters', '4', '--batch', '2', '--patch', '16', '--calib-batches', '1',
            '--lr', '1e-4', '--threads', '1', '--distill', '0.5']

    def qat(*extra):
        subprocess.run([sys.executable, '-m', 'sr', 'qat', *args, *extra], capture_output=True, text=True,
                       check=True, cwd=TRAINING, env=dict(os.environ, SR_RUNS_DIR=str(tmp_path / 'runs')))

    qat('--name', 'folders')
    qat('--name', 'packed', '--data', str(full_pack), '--workers', '1', '--device', 'cpu', '--out', str(tmp_path / 'out'))
    a = torch.load(tmp_path / 'runs' / 'folders' / 'last.pt', weights_only=False)
    b = torch.load(tmp_path / 'out' / 'packed' / 'last.pt', weights_only=False)
    assert a['iteration'] == b['iteration'] == 4 and b['meta']['config']['workers'] == 1
    for k in a['model']:
        assert torch.equal(a['model'][k], b['model'][k]), k
    rec = json.loads((tmp_path / 'out' / 'packed' / 'metrics.jsonl').read_text().splitlines()[-1])
    assert rec['device'] == 'cpu' and not (tmp_path / 'runs' / 'packed').exists()
